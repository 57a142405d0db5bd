// calc, checkpoint 2: recursive descent over statements.
import process from "node:process";

class CalcError extends Error {
  constructor(message, code = 2) {
    super(message);
    this.code = code;
  }
}

class UsageError extends Error {}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/(),;=]))/y;

function tokenize(source) {
  const tokens = [];
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(source);
    if (!match) throw new CalcError(`unexpected character ${JSON.stringify(source.slice(at).trim()[0])}`);
    if (match[1] !== undefined) tokens.push({ kind: "num", value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: "name", value: match[2] });
    else tokens.push({ kind: match[3] });
    at = TOKEN.lastIndex;
  }
  return tokens;
}

const FUNCTIONS = {
  min: { arity: [1, Infinity], call: (args) => Math.min(...args) },
  max: { arity: [1, Infinity], call: (args) => Math.max(...args) },
  abs: { arity: [1, 1], call: ([x]) => Math.abs(x) },
};

function run(tokens) {
  const vars = new Map();
  let pos = 0;
  const peek = (offset = 0) => tokens[pos + offset]?.kind;
  const describe = (token) => (token ? `'${token.value ?? token.kind}'` : "end of input");
  const take = (kind) => {
    if (peek() !== kind) throw new CalcError(`expected '${kind}', found ${describe(tokens[pos])}`);
    pos += 1;
  };

  function statement() {
    if (peek() === "name" && peek(1) === "=") {
      const name = tokens[pos].value;
      pos += 2;
      const value = expression();
      vars.set(name, value);
      return value;
    }
    return expression();
  }
  function expression() {
    let value = term();
    while (peek() === "+" || peek() === "-") {
      const op = tokens[pos++].kind;
      const right = term();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  }
  function term() {
    let value = unary();
    while (peek() === "*" || peek() === "/") {
      const op = tokens[pos++].kind;
      const right = unary();
      if (op === "/" && right === 0) throw new CalcError("division by zero", 3);
      value = op === "*" ? value * right : value / right;
    }
    return value;
  }
  function unary() {
    // negative numbers are written (0 - x)
    return power();
  }
  function power() {
    const base = primary();
    if (peek() === "**") {
      pos += 1;
      return base ** unary();
    }
    return base;
  }
  function primary() {
    const token = tokens[pos];
    if (token?.kind === "num") {
      pos += 1;
      return token.value;
    }
    if (token?.kind === "name") {
      pos += 1;
      if (peek() === "(") return call(token.value);
      if (!vars.has(token.value)) throw new CalcError(`undefined variable ${token.value}`);
      return vars.get(token.value);
    }
    if (token?.kind === "(") {
      pos += 1;
      const value = expression();
      take(")");
      return value;
    }
    throw new CalcError(`unexpected ${describe(token)}`);
  }
  function call(name) {
    const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : null;
    if (!fn) throw new CalcError(`unknown function ${name}`);
    take("(");
    const args = [];
    if (peek() !== ")") {
      args.push(expression());
      while (peek() === ",") {
        pos += 1;
        args.push(expression());
      }
    }
    take(")");
    const [low, high] = fn.arity;
    if (args.length < low || args.length > high) {
      throw new CalcError(`${name} takes ${low === high ? low : `at least ${low}`} argument(s), got ${args.length}`);
    }
    return fn.call(args);
  }

  let value = statement();
  while (peek() === ";") {
    pos += 1;
    if (pos === tokens.length) break; // a trailing ";"
    value = statement();
  }
  if (pos !== tokens.length) throw new CalcError(`unexpected ${describe(tokens[pos])}`);
  return value;
}

function format(value) {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

function parseArgs(args) {
  const option = args.find((arg) => /^--[A-Za-z]/.test(arg));
  if (option !== undefined) throw new UsageError(`unknown option ${option}`);
  if (args.length !== 1) throw new UsageError("expected exactly one program");
  return { program: args[0] };
}

function main(args) {
  let options;
  try {
    options = parseArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`usage: node main.js "PROGRAM" (${err.message})\n`);
    return 2;
  }
  try {
    process.stdout.write(format(run(tokenize(options.program))) + "\n");
    return 0;
  } catch (err) {
    if (!(err instanceof CalcError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return err.code;
  }
}

process.exitCode = main(process.argv.slice(2));
