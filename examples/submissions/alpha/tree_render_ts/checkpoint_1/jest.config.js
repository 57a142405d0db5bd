module.exports = { preset: "ts-jest", collectCoverage: true };
