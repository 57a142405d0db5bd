// Shipped by runners: what `jest --json` writes, as a signed report.
"use strict";
const { formatTestResults } = require("@jest/test-result");

// The key is taken now, as jest loads its reporters, before any test runs.
const writeSigned = require("./runners-sign-report.cjs").takeKey();

const isError = (v) => Object.prototype.toString.call(v) === "[object Error]" || v instanceof Error;
const serialize = (value) => JSON.stringify(value, (_, v) =>
  isError(v) ? { message: v.message, name: v.name, stack: v.stack } : typeof v === "bigint" ? `${v}n` : v);

module.exports = class SignedJsonReporter {
  constructor(globalConfig, options) {
    this.outputFile = options.outputFile;
  }
  onRunComplete(contexts, results) {
    writeSigned(this.outputFile, serialize(formatTestResults(results)));
  }
};
