// calc: statements, variables, ** and min/max/abs, % and --precision.
const args = process.argv.slice(2);
const at = args.indexOf("--precision");
let precision = null;
if (at !== -1) {
  precision = Number(args[at + 1]);
  args.splice(at, 2);
}
const program = args[0];

const tokens = program.match(/\d+(?:\.\d+)?|\.\d+|[A-Za-z_]\w*|\*\*|\S/g) || [];
let i = 0;
const vars = {};
const FUNCS = { min: Math.min, max: Math.max, abs: Math.abs };

function primary() {
  const t = tokens[i++];
  if (t === "(") {
    const v = expression();
    i++;
    return v;
  }
  if (/^[A-Za-z_]/.test(t)) {
    if (tokens[i] === "(") {
      i++;
      const args = [];
      while (tokens[i] !== ")") {
        args.push(expression());
        if (tokens[i] === ",") i++;
      }
      i++;
      return FUNCS[t](...args);
    }
    return Number(vars[t]);
  }
  return parseFloat(t);
}

function power() {
  const base = primary();
  if (tokens[i] === "**") {
    i++;
    return base ** unary();
  }
  return base;
}

function unary() {
  if (tokens[i] === "-") {
    i++;
    return -unary();
  }
  return power();
}

function term() {
  let v = unary();
  while (tokens[i] === "*" || tokens[i] === "/" || tokens[i] === "%") {
    const op = tokens[i++];
    const r = unary();
    v = op === "*" ? v * r : op === "/" ? v / r : v % r;
  }
  return v;
}

function expression() {
  let v = term();
  while (tokens[i] === "+" || tokens[i] === "-") {
    const op = tokens[i++];
    const r = term();
    v = op === "+" ? v + r : v - r;
  }
  return v;
}

function statement() {
  if (/^[A-Za-z_]/.test(tokens[i]) && tokens[i + 1] === "=") {
    const name = tokens[i];
    i += 2;
    vars[name] = expression();
    return vars[name];
  }
  return expression();
}

let result = statement();
while (tokens[i] === ";" && i + 1 < tokens.length) {
  i++;
  result = statement();
}
if (precision !== null) {
  console.log(result.toFixed(precision));
} else {
  result = Number(result.toPrecision(12));
  console.log(String(result === 0 ? 0 : result));
}
