// Shipped by runners: the vitest config of a repository problem's run. It loads the problem's
// trusted config (if any) and then sets what the harness owns: which files run, the reporters,
// snapshots, caches, no coverage, no watch. Settings are written by the runner beside this file.
import { createRequire } from "node:module";
import { mergeConfig } from "vitest/config";

const require = createRequire(import.meta.url);
const settings = require("./runners-vitest-config.json");

async function trusted() {
  if (!settings.trusted) return {};
  const loaded = (await import(/* @vite-ignore */ settings.trusted)).default ?? {};
  return typeof loaded === "function" ? await loaded({ command: "serve", mode: "test" }) : loaded;
}

const base = await trusted();
const ours = settings.config;
const merged = mergeConfig(base, { test: { tags: ours.test.tags } });
const test = (merged.test = merged.test ?? {});
// Replaced, not merged: a trusted config's own include, reporters or coverage never apply here.
for (const key of ["include", "reporters", "watch", "allowOnly", "passWithNoTests", "includeTaskLocation"]) {
  test[key] = ours.test[key];
}
if (ours.test.testTimeout) test.testTimeout = test.hookTimeout = ours.test.testTimeout;
test.exclude = [];
test.outputFile = undefined;
test.coverage = { ...(test.coverage ?? {}), enabled: false };
// Type errors outside the type tests belong to no test: vitest would fail the run for them with
// every test passed. They are not graded (the type tests are).
test.typecheck = { ...(test.typecheck ?? {}), ...ours.test.typecheck, ignoreSourceErrors: true };
// tsc (or vue-tsc) through our wrapper, which keeps its build info out of vitest's read-only files.
const checker = test.typecheck.checker ?? "tsc";
if (checker === "tsc" || checker === "vue-tsc") {
  process.env.RUNNERS_TYPECHECKER = checker;
  test.typecheck.checker = settings.checker;
}
// One project: the trusted config's own projects (workspaces) would run files of their choosing.
delete test.projects;
delete test.workspace;
test.resolveSnapshotPath = require("./runners-snapshots.cjs").resolveSnapshotPath;
merged.root = ours.root;
merged.cacheDir = ours.cacheDir;
export default merged;
