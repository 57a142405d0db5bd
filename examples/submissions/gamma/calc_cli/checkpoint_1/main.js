// calc: evaluate the expression given on the command line.
const expr = process.argv[2];

let i = 0;
const src = expr.replace(/\s+/g, "");

function number() {
  const m = /^(\d+(\.\d+)?|\.\d+)/.exec(src.slice(i));
  if (!m) throw new Error("bad number at " + i);
  i += m[0].length;
  return parseFloat(m[0]);
}

function factor() {
  if (src[i] === "-") {
    i++;
    return -factor();
  }
  if (src[i] === "(") {
    i++;
    const v = sum();
    i++; // skip ")"
    return v;
  }
  return number();
}

function product() {
  let v = factor();
  while (src[i] === "*" || src[i] === "/") {
    const op = src[i++];
    const r = factor();
    v = op === "*" ? v * r : v / r;
  }
  return v;
}

function sum() {
  let v = product();
  while (src[i] === "+" || src[i] === "-") {
    const op = src[i++];
    const r = product();
    v = op === "+" ? v + r : v - r;
  }
  return v;
}

const result = Number(sum().toPrecision(12));
console.log(String(result === 0 ? 0 : result));
