// The jest settings this problem trusts (a submission's own jest.config.*, babel config or
// tsconfig is removed from the run's copy): ts-jest compiles the TypeScript, ES module syntax
// included, with the tsconfig.json beside this file. The harness still decides which files run,
// the reporters, snapshots and caches.
/** @type {import('jest').Config} */
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
};
