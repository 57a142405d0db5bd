export interface TreeNode {
  label: string;
  children?: TreeNode[];
}

export interface RenderOptions {
  /** `|-- ` branches instead of box-drawing characters. */
  ascii?: boolean;
  /** Children ordered by label at every level. */
  sort?: boolean;
  /** Nodes deeper than this are not drawn (the root is at depth 0). */
  maxDepth?: number;
}

const BOX = { tee: "├── ", last: "└── ", pipe: "│   ", blank: "    " };
const ASCII = { tee: "|-- ", last: "`-- ", pipe: "|   ", blank: "    " };

function check(node: TreeNode): void {
  if (typeof node?.label !== "string") throw new TypeError("a node's label must be a string");
  if (node.children !== undefined && !Array.isArray(node.children)) {
    throw new TypeError(`the children of ${node.label} must be an array`);
  }
}

export function renderTree(root: TreeNode): string;
export function renderTree(root: TreeNode, options: RenderOptions): string;
export function renderTree(root: TreeNode, options: RenderOptions = {}): string {
  const { maxDepth = Number.POSITIVE_INFINITY } = options;
  if (maxDepth !== Number.POSITIVE_INFINITY && !(Number.isInteger(maxDepth) && maxDepth >= 0)) {
    throw new RangeError(`maxDepth must be a non-negative integer, got ${maxDepth}`);
  }
  const glyphs = options.ascii ? ASCII : BOX;
  const lines: string[] = [];

  const kids = (node: TreeNode): TreeNode[] => {
    const children = [...(node.children ?? [])];
    return options.sort ? children.sort((a, b) => a.label.localeCompare(b.label)) : children;
  };
  const count = (node: TreeNode): number =>
    (node.children ?? []).reduce((sum, child) => sum + 1 + count(child), 0);
  const label = (node: TreeNode, depth: number): string => {
    const hidden = depth >= maxDepth ? count(node) : 0;
    const text = node.label.trim();
    return hidden ? `${text} (+${hidden})` : text;
  };
  const walk = (node: TreeNode, prefix: string, depth: number): void => {
    const children = kids(node);
    children.forEach((child, index) => {
      check(child);
      const last = index === children.length - 1;
      lines.push(prefix + (last ? glyphs.last : glyphs.tee) + label(child, depth + 1));
      if (depth + 1 < maxDepth) walk(child, prefix + (last ? glyphs.blank : glyphs.pipe), depth + 1);
    });
  };

  check(root);
  lines.push(label(root, 0));
  if (maxDepth > 0) walk(root, "", 0);
  return lines.join("\n");
}

/** A tree from slash-separated paths under a root labelled `rootLabel`; every node has a
 * `children` array (empty for leaves), in order of first appearance. */
export function fromPaths(paths: string[], rootLabel = "."): TreeNode {
  const root: TreeNode = { label: rootLabel, children: [] };
  for (const path of paths) {
    if (typeof path !== "string") throw new TypeError("paths must be strings");
    let node = root;
    for (const part of path.split("/").filter(Boolean)) {
      let next = node.children!.find((child) => child.label === part);
      if (!next) {
        next = { label: part, children: [] };
        node.children!.push(next);
      }
      node = next;
    }
  }
  return root;
}
