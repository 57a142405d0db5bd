// Shipped by runners: vitest's JSON reporter, writing a signed report.
import { createRequire } from "node:module";
import { JsonReporter } from "vitest/reporters";

// Node's own require, as in vitest.config.mjs; the key is taken now, before any test runs.
const writeSigned = createRequire(import.meta.url)("./runners-sign-report.cjs").takeKey();

// A file that failed to load has only its error's first line in the JSON report: its stack and
// the file and line the error names (a syntax error's) go beside it, for runners.engine.blame.
function loadError(errors) {
  return errors.slice(0, 3).map((error) => {
    const rollup = error.__vitest_rollup_error__ ?? {};  // vite's transform errors keep their file here
    const where = rollup.loc?.file ?? rollup.id ?? error.loc?.file ?? error.id;
    const line = rollup.loc?.line ?? error.loc?.line;
    const located = where ? `\nFile: ${where}${line ? `:${line}` : ""}` : "";
    return `${error.name ?? "Error"}: ${error.message ?? ""}${located}\n${error.stack ?? ""}`.slice(0, 16000);
  }).join("\n\n");
}

export default class SignedJsonReporter extends JsonReporter {
  async onTestRunEnd(testModules, ...rest) {
    this.runnersLoadErrors = new Map();
    for (const module of testModules) {
      const errors = module.task?.result?.errors ?? [];
      if (errors.length) this.runnersLoadErrors.set(module.task.filepath, loadError(errors));
    }
    return super.onTestRunEnd(testModules, ...rest);
  }

  async writeReport(report) {
    if (this.runnersLoadErrors?.size) {
      const data = JSON.parse(report);
      for (const entry of data.testResults ?? []) {
        const text = this.runnersLoadErrors.get(entry.name);
        if (text) entry.runnersLoadError = text;
      }
      report = JSON.stringify(data);
    }
    writeSigned(this.options.outputFile, report);
  }
}
