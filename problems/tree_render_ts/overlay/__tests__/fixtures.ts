import type { TreeNode } from "../src/tree";

export const project: TreeNode = {
  label: "project",
  children: [
    { label: "src", children: [{ label: "tree.ts" }, { label: "index.ts" }] },
    { label: "README.md" },
    { label: "docs", children: [{ label: "guide", children: [{ label: "intro.md" }] }] },
  ],
};
