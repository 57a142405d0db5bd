// Shipped by runners: the one-time key and the signing of a report, shared by our reporters.
"use strict";
const { createHmac } = require("node:crypto");
const { readFileSync, rmSync, writeFileSync } = require("node:fs");

// The names must match KEY_FILE_ENV (runners/plugins/runners_report_signature.py) and
// SIGNATURE_SUFFIX (runners/frameworks/js_report.py).
const KEY_FILE_ENV = "RUNNERS_REPORT_KEY_FILE";
const SIGNATURE_SUFFIX = ".sig";

// Called once, by a reporter as it loads (before any test runs): reads the key, deletes its
// file, and returns the only function that holds it. A later call finds no key file, so code
// that requires this module afterwards gets a writer that signs nothing.
function takeKey() {
  const keyFile = process.env[KEY_FILE_ENV];
  let key = null;
  if (keyFile) {
    try { key = readFileSync(keyFile); } catch {}
    rmSync(keyFile, { force: true });
  }
  // The report, then `<report>.sig`: HMAC-SHA256 of its exact bytes, in hex.
  return function writeSigned(file, report) {
    writeFileSync(file, report, "utf-8");
    if (key) writeFileSync(file + SIGNATURE_SUFFIX, createHmac("sha256", key).update(report, "utf-8").digest("hex"));
  };
}

module.exports = { takeKey };
