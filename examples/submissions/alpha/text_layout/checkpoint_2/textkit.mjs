// Text layout: wrap() and align(). Widths are counted in code points.

const ALIGNMENTS = new Set(["left", "right", "center"]);

const width = (text) => [...text].length;

export function wrap(text, max) {
  if (typeof text !== "string") throw new TypeError("text must be a string");
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`width must be an integer >= 1, got ${String(max)}`);
  const lines = [];
  let current = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const chars = [...word];
    if (chars.length > max) {
      if (current) lines.push(current);
      let start = 0;
      for (; chars.length - start > max; start += max) lines.push(chars.slice(start, start + max).join(""));
      current = chars.slice(start).join("");
    } else if (!current) {
      current = word;
    } else if (width(current) + 1 + chars.length <= max) {
      current += " " + word;
    } else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

export function align(line, size, how = "left") {
  if (typeof line !== "string") throw new TypeError("line must be a string");
  if (!Number.isInteger(size) || size < 0) throw new RangeError(`width must be an integer >= 0, got ${String(size)}`);
  if (!ALIGNMENTS.has(how)) throw new RangeError(`unknown alignment ${JSON.stringify(how)}`);
  const extra = size - width(line);
  if (extra <= 0) return line;
  if (how === "left") return line + " ".repeat(extra);
  if (how === "right") return " ".repeat(extra) + line;
  const before = Math.floor(extra / 2);
  return " ".repeat(before) + line + " ".repeat(extra - before);
}

function cellText(value, maxWidth) {
  let text = value === null || value === undefined ? "" : String(value);
  text = text.replace(/\r\n|\n|\r/g, " ").replace(/\|/g, "\\|");
  const chars = [...text];
  if (maxWidth !== undefined && chars.length > maxWidth) text = chars.slice(0, maxWidth - 1).join("") + "…";
  return text;
}

function separator(size, how) {
  if (how === "left") return ":" + "-".repeat(size - 1);
  if (how === "right") return "-".repeat(size - 1) + ":";
  if (how === "center") return ":" + "-".repeat(size - 2) + ":";
  return "-".repeat(size);
}

export function table(rows, options = {}) {
  if (!Array.isArray(rows) || rows.length === 0) throw new TypeError("rows must be a non-empty array");
  rows.forEach((row, index) => {
    if (!Array.isArray(row)) throw new TypeError(`row ${index} is not an array`);
  });
  const columns = rows[0].length;
  if (columns === 0) throw new RangeError("the header row has no cell");
  rows.forEach((row, index) => {
    if (row.length > columns) throw new RangeError(`row ${index} has ${row.length} cells, the header ${columns}`);
  });
  const aligns = options.align ?? [];
  for (const how of aligns) {
    if (how !== undefined && !ALIGNMENTS.has(how)) throw new RangeError(`unknown alignment ${JSON.stringify(how)}`);
  }
  const { maxWidth } = options;
  if (maxWidth !== undefined && (!Number.isInteger(maxWidth) || maxWidth < 1)) {
    throw new RangeError("maxWidth must be an integer >= 1");
  }
  const cells = rows.map((row) => Array.from({ length: columns }, (_, i) => cellText(row[i], maxWidth)));
  const sizes = Array.from({ length: columns }, (_, i) => Math.max(3, ...cells.map((row) => width(row[i]))));
  const render = (row) => "| " + row.map((text, i) => align(text, sizes[i], aligns[i] ?? "left")).join(" | ") + " |";
  const [header, ...body] = cells;
  return [render(header), "| " + sizes.map((size, i) => separator(size, aligns[i])).join(" | ") + " |", ...body.map(render)]
    .join("\n");
}
