// Open a `runners report` page (a file) in headless Debian Chromium, driven by playwright-core,
// and report what it shows, as JSON on stdout.
//
//   node tests/report/report_check.cjs '<json options>'
//   options: {url, chromium, userDataDir, screenshot, width (default 1400), timeoutMs}
//
// Output: {ok, title, bodyText, requests: [urls the page asked for], errors: [page errors],
//          matrix: [{agent, problem, rate, detail}], figures: {id: {traces, visible: [names]}},
//          anchors: [ids of the rows' lines], error?}
'use strict';

const { chromium } = require('playwright-core');

async function main() {
  const opts = JSON.parse(process.argv[2] || '{}');
  const timeout = opts.timeoutMs || 60000;
  const report = { ok: false, requests: [], errors: [] };
  const context = await chromium.launchPersistentContext(opts.userDataDir, {
    executablePath: opts.chromium,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: opts.width || 1400, height: 900 },
    timeout,
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(timeout);
    page.on('request', (request) => report.requests.push(request.url()));
    page.on('pageerror', (error) => report.errors.push(String(error)));
    await page.goto(opts.url, { waitUntil: 'load' });
    // Every figure drawn: plotly marks its div once the plot is made.
    await page.waitForFunction(() => Array.from(document.querySelectorAll('.plotly-graph-div'))
      .every((div) => div.classList.contains('js-plotly-plot') && div.querySelector('.main-svg')));
    report.title = await page.title();
    report.bodyText = await page.evaluate(() => document.body.innerText);
    report.matrix = await page.evaluate(() => Array.from(document.querySelectorAll('td.matrix-cell')).map((td) => ({
      agent: td.dataset.agent, problem: td.dataset.problem,
      rate: (td.querySelector('.rate') || td).innerText.trim(),
      detail: td.querySelector('.detail') ? td.querySelector('.detail').innerText.trim() : '',
      background: getComputedStyle(td).backgroundColor,
    })));
    report.figures = await page.evaluate(() => Object.fromEntries(
      Array.from(document.querySelectorAll('.js-plotly-plot')).map((div) => [div.id, {
        traces: div.data.length,
        visible: div.data.filter((t) => t.visible !== false).map((t) => t.name),
        drawn: div.querySelectorAll('.scatterlayer .trace').length,
        menu: div.layout.updatemenus ? div.layout.updatemenus[0].buttons.map((b) => b.label) : [],
      }])));
    report.anchors = await page.evaluate(() => Array.from(document.querySelectorAll('table.rows tbody tr')).map((tr) => tr.id));
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
    report.ok = true;
  } finally {
    await context.close();
  }
  return report;
}

main().then(
  (report) => process.stdout.write(JSON.stringify(report)),
  (err) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String((err && err.stack) || err) }));
    process.exitCode = 1;
  },
);
