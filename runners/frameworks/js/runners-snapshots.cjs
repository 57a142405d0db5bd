// Shipped by runners: snapshots are read from, and written to, a fresh private copy.
// jest's `snapshotResolver` is this module; vitest's `resolveSnapshotPath` is its function.
"use strict";
const { existsSync, mkdtempSync, readFileSync, writeFileSync } = require("node:fs");
const path = require("node:path");
// Written by the runner beside this file (the read-only config dir): the run's /tmp as the
// sandbox sees it, plus the copies' name prefix.
const { prefix: PREFIX } = JSON.parse(readFileSync(path.join(__dirname, "runners-snapshots.json"), "utf-8"));
const copies = new Map();
const beside = (testPath, ext) =>
  path.join(path.dirname(testPath), "__snapshots__", path.basename(testPath) + ext);

module.exports = {
  resolveSnapshotPath(testPath, ext) {
    const source = beside(testPath, ext);
    if (!path.isAbsolute(testPath)) return source; // jest's consistency check
    // A new directory (mkdtemp fails rather than reuse one) and a new file ("wx"): nothing
    // planted there beforehand is followed. Content only: the sealed original is read-only.
    const copy = path.join(mkdtempSync(PREFIX), path.basename(source));
    if (existsSync(source)) writeFileSync(copy, readFileSync(source), { mode: 0o600, flag: "wx" });
    copies.set(copy, testPath);
    return copy;
  },
  resolveTestPath(snapshotPath, ext) {
    return copies.get(snapshotPath)
      ?? path.join(path.dirname(path.dirname(snapshotPath)), path.basename(snapshotPath, ext));
  },
  testPathForConsistencyCheck: "some/__tests__/example.test.js",
};
