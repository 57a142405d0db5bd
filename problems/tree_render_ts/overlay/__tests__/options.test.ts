import { renderTree } from "../src/tree";
import { project } from "./fixtures";

describe("options", () => {
  test("ascii branches", () => {
    expect(renderTree(project, { ascii: true })).toMatchSnapshot();
  });

  test("sort orders children by label at every level", () => {
    expect(renderTree(project, { sort: true })).toMatchSnapshot();
  });

  test("maxDepth cuts deeper nodes and counts what it hid", () => {
    expect(renderTree(project, { maxDepth: 1 })).toMatchSnapshot("depth 1");
    expect(renderTree(project, { maxDepth: 0 })).toBe("project (+3)");
  });

  test("options combine", () => {
    expect(renderTree(project, { ascii: true, sort: true, maxDepth: 2 })).toMatchSnapshot();
  });

  test.each([-1, 1.5, Number.NaN])("maxDepth %s is a RangeError @error", (maxDepth) => {
    expect(() => renderTree(project, { maxDepth })).toThrow(RangeError);
  });
});
