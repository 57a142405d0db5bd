// calc_cli, checkpoint 3: `%` and --precision.
const { calc, expectFailure, expectValue } = require("./cli");

describe("remainder", () => {
  it.each([
    ["7 % 3", "1"],
    ["2 + 7 % 4 * 2", "8"],
    ["-7 % 3", "-1"],
  ])("%s prints %s", (program, value) => {
    expectValue(calc(program), value);
  });

  it("by zero is an error @error", () => {
    expectFailure(calc("5 % 0"), 3, "error: division by zero");
  });
});

describe("--precision", () => {
  it.each([
    ["2", "1/3", "0.33"],
    ["0", "2.5 * 3", "8"],
    ["3", "2", "2.000"],
  ])("--precision %s of %s prints %s", (digits, program, value) => {
    expectValue(calc("--precision", digits, program), value);
  });

  it("may follow the program @functionality", () => {
    expectValue(calc("10 / 3", "--precision", "1"), "3.3");
  });

  it("applies to programs with variables @regression", () => {
    expectValue(calc("--precision", "2", "x = 1 / 4; y = x * 3; y + x"), "1.00");
  });

  describe("invalid values @usage", () => {
    it.each(["-1", "abc", "21", "1.5"])("rejects %j", (digits) => {
      expectFailure(calc("--precision", digits, "1"), 2, "usage:");
    });

    it("rejects a missing value", () => {
      expectFailure(calc("1 + 1", "--precision"), 2, "usage:");
    });
  });
});
