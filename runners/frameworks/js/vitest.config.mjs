// Shipped by runners: the only vitest config this run loads.
import { createRequire } from "node:module";

// Node's own require: vitest's config loader runs a `.cjs` import as ESM. The settings are
// written by the runner beside this file (the read-only config dir).
const require = createRequire(import.meta.url);
const config = require("./runners-vitest-config.json");
config.test.resolveSnapshotPath = require("./runners-snapshots.cjs").resolveSnapshotPath;
export default config;
