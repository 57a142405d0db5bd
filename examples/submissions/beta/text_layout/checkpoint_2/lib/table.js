import { align } from "./align.js";
import { codePoints } from "./width.js";

const ALIGNMENTS = ["left", "right", "center"];

function text(value, maxWidth) {
  let s = value == null ? "" : String(value);
  s = s.replace(/\r\n|\r|\n/g, " ").replaceAll("|", "\\|");
  if (maxWidth !== undefined && codePoints(s) > maxWidth) s = Array.from(s).slice(0, maxWidth - 1).join("") + "…";
  return s;
}

function rule(width, how) {
  switch (how) {
    case "left": return ":" + "-".repeat(width - 1);
    case "right": return "-".repeat(width - 1) + ":";
    case "center": return ":" + "-".repeat(width - 2) + ":";
    default: return "-".repeat(width);
  }
}

export function table(rows, options = {}) {
  if (!Array.isArray(rows) || rows.length === 0 || !rows.every(Array.isArray)) {
    throw new TypeError("table: rows must be a non-empty array of arrays");
  }
  const n = rows[0].length;
  if (n === 0) throw new RangeError("table: empty header");
  const bad = rows.findIndex((row) => row.length > n);
  if (bad !== -1) throw new RangeError(`table: row ${bad} is longer than the header`);
  const aligns = options.align || [];
  if (aligns.some((how) => how !== undefined && !ALIGNMENTS.includes(how))) throw new RangeError("table: bad alignment");
  const maxWidth = options.maxWidth;
  if (maxWidth !== undefined && !(Number.isInteger(maxWidth) && maxWidth >= 1)) throw new RangeError("table: bad maxWidth");
  const grid = rows.map((row) => [...Array(n).keys()].map((i) => text(row[i], maxWidth)));
  const widths = [...Array(n).keys()].map((i) => Math.max(3, ...grid.map((row) => codePoints(row[i]))));
  const line = (cells) => `| ${cells.join(" | ")} |`;
  const out = grid.map((row) => line(row.map((cell, i) => align(cell, widths[i], aligns[i] || "left"))));
  out.splice(1, 0, line(widths.map((w, i) => rule(w, aligns[i]))));
  return out.join("\n");
}
