import { renderTree } from "../src/tree";
import { project } from "./fixtures";

describe("renderTree", () => {
  test("a lone root is its label", () => {
    expect(renderTree({ label: "root" })).toBe("root");
  });

  test("children are drawn with box-drawing branches", () => {
    expect(renderTree({ label: "r", children: [{ label: "a" }, { label: "b" }] })).toBe("r\n├── a\n└── b");
  });

  test("a nested tree", () => {
    expect(renderTree(project)).toMatchSnapshot();
  });

  test("continuation lines under a last child are blank", () => {
    const tree = { label: "r", children: [{ label: "a", children: [{ label: "a1" }, { label: "a2" }] }] };
    expect(renderTree(tree)).toMatchSnapshot();
  });

  test("an empty children array draws no branch", () => {
    expect(renderTree({ label: "r", children: [] })).toBe("r");
  });

  test("labels keep their spaces and unicode", () => {
    expect(renderTree({ label: "naïve café", children: [{ label: " two  spaces " }] })).toMatchSnapshot();
  });

  test("the tree is not modified", () => {
    const copy = JSON.parse(JSON.stringify(project));
    renderTree(project);
    expect(project).toEqual(copy);
  });

  test("a label that is not a string is a TypeError @error", () => {
    expect(() => renderTree({ label: 3 as unknown as string })).toThrow(TypeError);
  });

  test("children that are not an array are a TypeError @error", () => {
    expect(() => renderTree({ label: "r", children: "a" as never })).toThrow(TypeError);
  });
});
