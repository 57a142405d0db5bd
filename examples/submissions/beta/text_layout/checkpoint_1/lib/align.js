import { codePoints } from "./width.js";

const PAD = {
  left: (n) => [0, n],
  right: (n) => [n, 0],
  center: (n) => [Math.floor(n / 2), n - Math.floor(n / 2)],
};

export function align(line, width, how = "left") {
  if (typeof line !== "string") throw new TypeError("align: line must be a string");
  if (!Number.isInteger(width) || width < 0) throw new RangeError(`align: invalid width ${width}`);
  if (!Object.hasOwn(PAD, how)) throw new RangeError(`align: unknown alignment '${how}'`);
  const missing = width - codePoints(line);
  if (missing <= 0) return line;
  const [before, after] = PAD[how](missing);
  return " ".repeat(before) + line + " ".repeat(after);
}
