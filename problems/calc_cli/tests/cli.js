// Runs the submission's command (RUNNERS_ENTRYPOINT, a shell-quoted command line such as
// `/usr/bin/node /workspace/main.js`) with extra arguments, without a shell.
const { spawnSync } = require("node:child_process");

/** Splits a POSIX shell command line: '...' and "..." quoting, backslash escapes. */
function shellWords(line) {
  const words = [];
  let word = null;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      word = word ?? "";
      for (i += 1; i < line.length && line[i] !== '"'; i += 1) {
        if (line[i] === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i += 1;
        word += line[i];
      }
      if (i >= line.length) throw new Error(`unterminated " in ${line}`);
    } else if (ch === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[i + 1];
      i += 1;
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function entrypoint() {
  const command = process.env.RUNNERS_ENTRYPOINT;
  if (!command) throw new Error("RUNNERS_ENTRYPOINT is not set: run these tests through the runners harness");
  return shellWords(command);
}

/** Runs the calculator; returns {code, stdout, stderr}. */
function calc(...args) {
  const [program, ...prefix] = entrypoint();
  const run = spawnSync(program, [...prefix, ...args], {
    encoding: "utf8",
    timeout: 10_000,
    cwd: process.env.SUBMISSION_PATH,
  });
  if (run.error) throw run.error;
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Expects a successful run printing `value`. */
function expectValue(run, value) {
  expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: `${value}\n`, stderr: "" });
}

/** Expects a failed run: nothing on stdout, stderr starting with `prefix`, exit code `code`. */
function expectFailure(run, code, prefix) {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: "" });
  expect(run.stderr.startsWith(prefix)).toBe(true);
}

module.exports = { calc, expectFailure, expectValue, shellWords };
