// calc_cli, checkpoint 1: arithmetic. Unmarked tests are Core; `@functionality`, `@error` and
// the custom `@usage` (Error group) in a test or describe title select the other groups.
const { calc, expectFailure, expectValue } = require("./cli");

describe("arithmetic", () => {
  it.each([
    ["1 + 2", "3"],
    ["2 * 3 + 4", "10"],
    ["2 * (3 + 4)", "14"],
    ["10 / 4", "2.5"],
    ["-3 + 5", "2"],
  ])("%s prints %s", (expression, value) => {
    expectValue(calc(expression), value);
  });

  it("needs no spaces and accepts tabs", () => {
    expectValue(calc("8-2*3"), "2");
    expectValue(calc("\t1 +\t.5 "), "1.5");
  });

  it("evaluates operators of one level from left to right", () => {
    expectValue(calc("20 / 5 / 2 - 1 - 1"), "0");
  });
});

describe("number formatting and signs @functionality", () => {
  it("rounds to 12 significant digits", () => {
    expectValue(calc("0.1 + 0.2"), "0.3");
    expectValue(calc("1 / 3"), "0.333333333333");
  });

  it("accepts repeated and parenthesized negation", () => {
    expectValue(calc("- -4"), "4");
    expectValue(calc("-(-3) * 2"), "6");
  });
});

describe("invalid expressions", () => {
  it.each(["1 +", "(1 + 2", "1 $ 2", "2 3", ""])("rejects %j @error", (expression) => {
    expectFailure(calc(expression), 2, "error:");
  });

  it("reports a division by zero @error", () => {
    expectFailure(calc("4 / (2 - 2)"), 3, "error: division by zero");
  });
});

describe("command line @usage", () => {
  it("needs an expression", () => {
    expectFailure(calc(), 2, "usage:");
  });

  it("takes a single argument", () => {
    expectFailure(calc("1", "2"), 2, "usage:");
  });
});
