import { fromPaths, renderTree } from "../src/tree";

describe("fromPaths", () => {
  test("builds a tree from slash-separated paths", () => {
    const tree = fromPaths(["src/tree.ts", "src/index.ts", "README.md"]);
    expect(tree).toMatchSnapshot();
  });

  test("shared prefixes are merged, in order of first appearance", () => {
    const tree = fromPaths(["b/x", "a/y", "b/z", "a/y/deep"], "top");
    expect(renderTree(tree)).toMatchSnapshot();
  });

  test("empty segments are ignored", () => {
    expect(fromPaths(["/a//b/", "a/b/c"])).toEqual(fromPaths(["a/b/c"]));
  });

  test("no paths is a lone root", () => {
    expect(fromPaths([])).toEqual({ label: ".", children: [] });
  });

  test("a path that is not a string is a TypeError @error", () => {
    expect(() => fromPaths(["a", 7 as unknown as string])).toThrow(TypeError);
  });
});
