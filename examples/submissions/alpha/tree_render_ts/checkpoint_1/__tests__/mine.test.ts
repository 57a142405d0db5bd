import { renderTree } from "../src/tree";

test("mine", () => {
  expect(renderTree({ label: "x" })).toBe("x");
});
