import { codePoints } from "./width.js";

function chunks(word, size) {
  const chars = Array.from(word);
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

export function wrap(text, width) {
  if (typeof text !== "string") throw new TypeError(`wrap: expected a string, got ${typeof text}`);
  if (typeof width !== "number" || !Number.isInteger(width) || width <= 0) {
    throw new RangeError(`wrap: invalid width ${width}`);
  }
  const out = [];
  let line = "";
  const words = text.trim() === "" ? [] : text.trim().split(/\s+/);
  for (const word of words) {
    const pieces = codePoints(word) > width ? chunks(word, width) : [word];
    if (pieces.length > 1) {
      if (line !== "") out.push(line);
      out.push(...pieces.slice(0, -1));
      line = pieces[pieces.length - 1];
      continue;
    }
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
