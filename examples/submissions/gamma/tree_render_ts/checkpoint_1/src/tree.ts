export interface TreeNode {
  label: string;
  children?: TreeNode[];
}

// Draws each level with "+-- " and indents by depth.
export function renderTree(root: TreeNode): string {
  const out: string[] = [String(root.label)];
  const walk = (node: TreeNode, depth: number) => {
    for (const child of node.children || []) {
      out.push("    ".repeat(depth) + "+-- " + child.label);
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return out.join("\n");
}
