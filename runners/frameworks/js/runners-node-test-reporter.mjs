// Shipped by runners: a reporter for `node --test` that writes a JUnit XML report, signed.
// It loads in the test runner's own process before any test file starts (node runs each file in
// a child process), takes the run's one-time key, and signs the report when the run ends.
import { createRequire } from "node:module";

const { takeKey } = createRequire(import.meta.url)("./runners-sign-report.cjs");
const writeSigned = takeKey();
const REPORT = process.env.RUNNERS_NODE_TEST_REPORT;

const escape = (text) => String(text ?? "").replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c])
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

export default async function* junit(source) {
  const cases = [];
  const open = new Map(); // file -> the names of the tests started and not yet ended, by nesting
  for await (const event of source) {
    const { name, nesting, file, details, skip, todo } = event.data ?? {};
    const names = open.get(file) ?? open.set(file, []).get(file);
    if (event.type === "test:start") {
      names.length = nesting;
      names[nesting] = name;
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    if (details?.type === "suite") continue; // a describe(): its tests carry its name
    const error = details?.error;
    const cause = error?.cause ?? error;
    cases.push({ file: file ?? "", name: [...names.slice(0, nesting), name].join(" > "),
                 seconds: (details?.duration_ms ?? 0) / 1000, skipped: Boolean(skip || todo),
                 failed: event.type === "test:fail", message: cause?.message ?? String(cause ?? ""),
                 stack: cause?.stack ?? "" });
  }
  const byFile = Map.groupBy ? Map.groupBy(cases, (c) => c.file) : cases.reduce((m, c) => m.set(c.file, [...(m.get(c.file) ?? []), c]), new Map());
  const suites = [...byFile].map(([file, tests]) => `  <testsuite name="${escape(file)}" tests="${tests.length}">\n`
    + tests.map((c) => `    <testcase classname="" name="${escape(c.name)}" file="${escape(c.file)}" time="${c.seconds}">`
      + (c.skipped ? "<skipped/>" : c.failed ? `<failure message="${escape(c.message)}">${escape(c.stack)}</failure>` : "")
      + "</testcase>\n").join("") + "  </testsuite>\n");
  writeSigned(REPORT, `<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="node --test">\n${suites.join("")}</testsuites>\n`);
  yield `node --test: ${cases.length} tests reported\n`;
}
