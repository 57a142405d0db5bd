// Shipped by runners: the jest config of a repository problem's run. It reads the problem's
// trusted config (if any) with jest's own reader, then sets what the harness owns: which files
// run, reporters, snapshots, caches, no coverage, and babel without any config the submission
// ships. Settings are written by the runner beside this file.
"use strict";
const path = require("node:path");
const settings = require("./runners-jest-config.json");

const BABEL_JEST = /(^|[\\/])babel-jest([\\/]|$)/;

function withoutSubmissionBabel(transform) {
  const out = {};
  for (const [pattern, entry] of Object.entries(transform)) {
    const [name, options] = Array.isArray(entry) ? entry : [entry, {}];
    out[pattern] = BABEL_JEST.test(String(name))
      ? [name, { ...options, babelrc: false, configFile: settings.babelConfig ?? false }]
      : entry;
  }
  return out;
}

module.exports = async () => {
  let base = {};
  if (settings.trusted) {
    const { readInitialOptions } = require("jest-config");
    base = (await readInitialOptions(settings.trusted, { skipMultipleConfigError: true })).config;
  }
  const config = { ...base, ...settings.override };
  delete config.testRegex;
  delete config.coverageThreshold;
  delete config.projects;
  // A preset brings its own transform (ts-jest); jest's default is babel-jest, which would read the
  // submission's babel config: it gets the problem's (or none) instead.
  if (base.transform) config.transform = withoutSubmissionBabel(base.transform);
  else if (!base.preset) config.transform = withoutSubmissionBabel({ "\\.[cm]?[jt]sx?$": "babel-jest" });
  config.snapshotResolver = path.join(__dirname, "runners-snapshots.cjs");
  return config;
};
