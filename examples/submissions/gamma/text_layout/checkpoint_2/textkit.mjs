// Keep it simple: be lenient with odd input instead of throwing.

const len = (s) => Array.from(s).length;

export function wrap(text, width) {
  const size = Math.max(1, Math.floor(Number(width)) || 1);
  const words = String(text ?? "").split(/\s+/).filter((w) => w.length > 0);
  const lines = [];
  let cur = "";
  for (const word of words) {
    let rest = Array.from(word);
    if (rest.length > size) {
      if (cur) lines.push(cur);
      while (rest.length > size) {
        lines.push(rest.slice(0, size).join(""));
        rest = rest.slice(size);
      }
      cur = rest.join("");
      continue;
    }
    if (cur && len(cur) + 1 + rest.length <= size) cur += " " + word;
    else {
      if (cur) lines.push(cur);
      cur = word;
    }
  }
  if (cur) lines.push(cur);
  return lines;
}

export function align(line, width, how = "left") {
  const s = String(line ?? "");
  const extra = Math.max(0, (Number(width) || 0) - len(s));
  if (how === "right") return " ".repeat(extra) + s;
  if (how === "center") return " ".repeat(Math.floor(extra / 2)) + s + " ".repeat(extra - Math.floor(extra / 2));
  return s + " ".repeat(extra);
}

export function table(rows, options = {}) {
  const list = (Array.isArray(rows) ? rows : []).map((row) => (Array.isArray(row) ? row : [row]));
  const header = list[0] ?? [];
  const n = header.length;
  const aligns = Array.isArray(options.align) ? options.align : [];
  const max = options.maxWidth;
  const cell = (v) => {
    let s = v === null || v === undefined ? "" : String(v);
    s = s.replace(/\r\n|\n|\r/g, " ").replace(/\|/g, "\\|");
    if (max && len(s) > max) s = Array.from(s).slice(0, max - 1).join("") + "…";
    return s;
  };
  const grid = list.map((row) => Array.from({ length: n }, (_, i) => cell(row[i])));
  const widths = Array.from({ length: n }, (_, i) => Math.max(3, ...grid.map((r) => len(r[i]))));
  const fmt = (r) => "| " + r.map((c, i) => align(c, widths[i], aligns[i])).join(" | ") + " |";
  const sep = widths.map((w, i) => {
    const how = aligns[i];
    if (how === "left") return ":" + "-".repeat(w - 1);
    if (how === "right") return "-".repeat(w - 1) + ":";
    if (how === "center") return ":" + "-".repeat(w - 2) + ":";
    return "-".repeat(w);
  });
  if (!grid.length) return "";
  return [fmt(grid[0]), "| " + sep.join(" | ") + " |", ...grid.slice(1).map(fmt)].join("\n");
}
