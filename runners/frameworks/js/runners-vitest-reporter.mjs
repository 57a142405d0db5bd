// Shipped by runners: vitest's JSON reporter, writing a signed report.
import { createRequire } from "node:module";
import { JsonReporter } from "vitest/reporters";

// Node's own require, as in vitest.config.mjs; the key is taken now, before any test runs.
const writeSigned = createRequire(import.meta.url)("./runners-sign-report.cjs").takeKey();

export default class SignedJsonReporter extends JsonReporter {
  async writeReport(report) {
    writeSigned(this.options.outputFile, report);
  }
}
