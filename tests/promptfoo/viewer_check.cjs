// Open the promptfoo web viewer in headless Chromium (Debian's, driven by playwright-core; no
// browser download) and report what the results page shows, as JSON on stdout.
//
//   node tests/promptfoo/viewer_check.cjs '<json options>'
//   options: {url, chromium, userDataDir, screenshot, expect: [texts to wait for], timeoutMs,
//             width (viewport, default 1600), firstScreen (a screenshot of the viewport only)}
//
// Output: {ok, url, title, found: {text: bool}, bodyText, viewportWidth,
//          headers: [{text, left, right}] (the results table's column headers),
//          rows: [{height, text}] (its body rows), pageHeight, scrollWidth, error?}. Exit code 0 when the page
// loaded (whether or not every text was found: the Python test asserts), 1 on a browser error.
'use strict';

const { chromium } = require('playwright-core');

async function main() {
  const opts = JSON.parse(process.argv[2] || '{}');
  const timeout = opts.timeoutMs || 60000;
  const report = { ok: false, url: opts.url, title: '', found: {}, bodyText: '' };
  const context = await chromium.launchPersistentContext(opts.userDataDir, {
    executablePath: opts.chromium,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: opts.width || 1600, height: 1000 },
    timeout,
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(timeout);
    // The viewer is a single-page app: `/` opens the latest eval once its data has loaded.
    await page.goto(opts.url, { waitUntil: 'domcontentloaded' });
    const deadline = Date.now() + timeout;
    let text = '';
    for (;;) {
      text = await page.evaluate(() => document.body.innerText);
      const missing = (opts.expect || []).filter((t) => !text.includes(t));
      if (missing.length === 0 || Date.now() > deadline) break;
      await page.waitForTimeout(500);
    }
    await page.waitForTimeout(500);
    text = await page.evaluate(() => document.body.innerText);
    for (const t of opts.expect || []) report.found[t] = text.includes(t);
    report.title = await page.title();
    report.url = page.url();
    report.bodyText = text;
    report.viewportWidth = await page.evaluate(() => window.innerWidth);
    report.headers = await page.evaluate(() =>
      Array.from(document.querySelectorAll('thead th')).map((th) => {
        const r = th.getBoundingClientRect();
        return { text: th.innerText, left: r.left, right: r.right };
      }),
    );
    // The results table's body rows (one per problem checkpoint) and the page's full height.
    report.rows = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#results-table-container tbody tr, table tbody tr'))
        .filter((tr, i, all) => all.indexOf(tr) === i)
        .map((tr) => {
          const r = tr.getBoundingClientRect();
          return { height: r.height, text: tr.innerText.slice(0, 4000) };
        }),
    );
    report.pageHeight = await page.evaluate(() =>
      Math.max(document.documentElement.scrollHeight, document.body.scrollHeight));
    report.scrollWidth = await page.evaluate(() =>
      Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
    // What a person sees first: the viewport alone, before any scrolling.
    if (opts.firstScreen) await page.screenshot({ path: opts.firstScreen, fullPage: false });
    report.ok = true;
  } finally {
    await context.close();
  }
  return report;
}

main().then(
  (report) => {
    process.stdout.write(JSON.stringify(report));
  },
  (err) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String((err && err.stack) || err) }));
    process.exitCode = 1;
  },
);
