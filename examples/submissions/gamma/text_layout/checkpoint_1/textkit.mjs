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
