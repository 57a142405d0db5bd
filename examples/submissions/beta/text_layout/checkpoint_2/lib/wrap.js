import { codePoints } from "./width.js";

// Rewritten for the table work: a simpler greedy loop.
export function wrap(text, width) {
  if (typeof text !== "string") throw new TypeError(`wrap: expected a string, got ${typeof text}`);
  if (typeof width !== "number" || !Number.isInteger(width) || width <= 0) {
    throw new RangeError(`wrap: invalid width ${width}`);
  }
  const out = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    if (line === "") line = word;
    else if (codePoints(line) + 1 + codePoints(word) <= width) line = `${line} ${word}`;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line !== "") out.push(line);
  return out;
}
