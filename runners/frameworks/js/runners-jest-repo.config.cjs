// Shipped by runners: the jest config of a repository problem's run. It reads the problem's
// trusted config (if any) with jest's own reader, then sets what the harness owns: which files
// run, reporters, snapshots, caches, no coverage, and babel without any config the submission
// ships. Settings are written by the runner beside this file.
"use strict";
const path = require("node:path");
const settings = require("./runners-jest-config.json");

const BABEL_JEST = /(^|[\\/])babel-jest([\\/]|$)/;
const TS_JEST = /(^|[\\/])ts-jest([\\/]|$)/;
// Babel as the problem trusts it: never a .babelrc or a package.json#babel of the submission.
const TRUSTED_BABEL = () => ({ babelrc: false, configFile: settings.babelConfig ?? false });

function withoutSubmissionBabel(transform) {
  const out = {};
  for (const [pattern, entry] of Object.entries(transform)) {
    const [name, options = {}] = Array.isArray(entry) ? entry : [entry, {}];
    if (BABEL_JEST.test(String(name))) {
      out[pattern] = [name, { ...options, ...TRUSTED_BABEL() }];
    } else if (TS_JEST.test(String(name)) && options.babelConfig) {
      // ts-jest hands its output to babel-jest: `babelConfig: true` would find the submission's.
      const babel = typeof options.babelConfig === "object" ? options.babelConfig : {};
      out[pattern] = [name, { ...options, babelConfig: { ...babel, ...TRUSTED_BABEL() } }];
    } else {
      out[pattern] = entry;
    }
  }
  return out;
}

// The transform a preset brings, found the way jest finds it (jest merges it under the config's
// own): its babel-jest entries must get the trusted Babel config too.
async function presetTransform(preset, rootDir) {
  if (!preset) return {};
  const { default: Resolver } = require("jest-resolve");
  const { requireOrImportModule } = require("jest-util");
  const presetPath = String(preset).replace(/^<rootDir>/, rootDir);
  const local = presetPath.startsWith(".") || path.isAbsolute(presetPath);
  const module = Resolver.findNodeModule(local ? presetPath : `${presetPath}/jest-preset`, {
    basedir: rootDir, extensions: [".json", ".js", ".cjs", ".mjs"],
  });
  if (!module) return {}; // jest reports the missing preset itself
  const loaded = await requireOrImportModule(module);
  return (loaded && loaded.transform) || {};
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
  // Never in watch mode: jest still loads (and fails on a missing) watch plugin, a dev tool.
  delete config.watchPlugins;
  // The transform jest would end with (the config's entries over the preset's, else jest's
  // default babel-jest), every babel-jest in it without the submission's Babel config.
  const preset = await presetTransform(base.preset, config.rootDir);
  const own = base.transform ?? {};
  const merged = { ...own, ...preset, ...own };
  config.transform = withoutSubmissionBabel(
    Object.keys(merged).length ? merged : { "\\.[cm]?[jt]sx?$": "babel-jest" });
  config.snapshotResolver = path.join(__dirname, "runners-snapshots.cjs");
  return config;
};
