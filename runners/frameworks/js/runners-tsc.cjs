#!/usr/bin/env node
// Shipped by runners: the type checker of vitest's type tests (`typecheck.checker`). vitest asks
// tsc to write its incremental build info into vitest's own directory, which is read-only in a
// run; it goes to the run's /tmp instead. Everything else reaches tsc (or vue-tsc) unchanged.
"use strict";
const { spawnSync } = require("node:child_process");
const os = require("node:os");
const path = require("node:path");

const checker = process.env.RUNNERS_TYPECHECKER === "vue-tsc" ? "vue-tsc" : "tsc"; // set by our config

const BINS = { tsc: "typescript/bin/tsc", "vue-tsc": "vue-tsc/bin/vue-tsc.js" };
const args = process.argv.slice(2);
const at = args.indexOf("--tsBuildInfoFile");
if (at >= 0) args[at + 1] = path.join(os.tmpdir(), "runners-typecheck.tsbuildinfo");
const bin = require.resolve(BINS[checker], { paths: [process.cwd()] });
const result = spawnSync(process.execPath, [bin, ...args], { stdio: "inherit" });
process.exit(result.status ?? 1);
