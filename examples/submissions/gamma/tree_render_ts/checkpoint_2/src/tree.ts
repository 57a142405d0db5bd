export interface TreeNode {
  label: string;
  children?: TreeNode[];
}

export interface RenderOptions {
  ascii?: boolean;
  sort?: boolean;
  maxDepth?: number;
}

// Draws each level with "+-- " and indents by depth; only `sort` is supported.
export function renderTree(root: TreeNode, options: RenderOptions = {}): string {
  const out: string[] = [String(root.label)];
  const walk = (node: TreeNode, depth: number) => {
    const children = [...(node.children || [])];
    if (options.sort) children.sort((a, b) => (a.label < b.label ? -1 : 1));
    for (const child of children) {
      out.push("    ".repeat(depth) + "+-- " + child.label);
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return out.join("\n");
}

export function fromPaths(paths: string[], rootLabel = "."): TreeNode {
  const root: TreeNode = { label: rootLabel, children: [] };
  for (const path of paths) {
    let node = root;
    for (const part of String(path).split("/")) {
      const next: TreeNode = { label: part, children: [] };
      node.children!.push(next);
      node = next;
    }
  }
  return root;
}
