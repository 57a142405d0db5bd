// calc_cli, checkpoint 2: statements, variables, `**` and functions.
const { calc, expectFailure, expectValue } = require("./cli");

describe("statements and variables", () => {
  it.each([
    ["x = 3; x * 2", "6"],
    ["x = 3; y = x * 2; y + 1", "7"],
    ["x = 1; x = x + 1; x", "2"],
  ])("%s prints %s", (program, value) => {
    expectValue(calc(program), value);
  });

  it("prints the value of a final assignment", () => {
    expectValue(calc("total = 2 * 21;"), "42");
  });
});

describe("powers @functionality", () => {
  it("are right-associative", () => {
    expectValue(calc("2 ** 3 ** 2"), "512");
  });

  it("bind tighter than negation", () => {
    expectValue(calc("-2 ** 2"), "-4");
    expectValue(calc("2 ** -1"), "0.5");
  });
});

describe("functions", () => {
  it.each([
    ["min(4, 2, 8)", "2"],
    ["max(1, -4, abs(-9))", "9"],
    ["abs(2 - 7) * 2", "10"],
  ])("%s prints %s @functionality", (program, value) => {
    expectValue(calc(program), value);
  });

  it("rejects an unknown function @error", () => {
    expectFailure(calc("floor(2.5)"), 2, "error: unknown function floor");
  });

  it("rejects a wrong number of arguments @error", () => {
    expectFailure(calc("abs(1, 2)"), 2, "error:");
  });
});

it("rejects an undefined variable @error", () => {
  expectFailure(calc("x = 1; x + y"), 2, "error: undefined variable y");
});

it("keeps negation working next to variables @regression", () => {
  expectValue(calc("x = -2; -x * 3"), "6");
});

it("treats --something as an unknown option @usage", () => {
  expectFailure(calc("--verbose", "1 + 1"), 2, "usage:");
});
