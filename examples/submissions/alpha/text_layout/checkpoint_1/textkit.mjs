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
