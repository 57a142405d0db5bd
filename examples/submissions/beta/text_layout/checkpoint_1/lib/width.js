/** Display width in code points. */
export function codePoints(text) {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}
