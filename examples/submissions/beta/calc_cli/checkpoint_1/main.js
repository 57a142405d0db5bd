// calc: shunting-yard evaluation of + - * / ( ) with unary minus.
import process from "node:process";

const PRECEDENCE = { "+": 1, "-": 1, "*": 2, "/": 2, neg: 3 };

function fail(message, code = 2) {
  const err = new Error(message);
  err.exitCode = code;
  throw err;
}

function lex(text) {
  const out = [];
  const re = /\s+|(\d+(?:\.\d+)?|\.\d+)|([-+*/()])|(.)/gy;
  for (const m of text.matchAll(re)) {
    if (m[1]) out.push(Number(m[1]));
    else if (m[2]) out.push(m[2]);
    else if (m[3]) fail(`unexpected character '${m[3]}'`);
  }
  return out;
}

function toRpn(tokens) {
  const output = [];
  const ops = [];
  let expectOperand = true;
  for (const tok of tokens) {
    if (typeof tok === "number") {
      if (!expectOperand) fail(`unexpected number ${tok}`);
      output.push(tok);
      expectOperand = false;
    } else if (tok === "(") {
      if (!expectOperand) fail("unexpected '('");
      ops.push(tok);
    } else if (tok === ")") {
      if (expectOperand) fail("unexpected ')'");
      while (ops.length && ops.at(-1) !== "(") output.push(ops.pop());
      if (!ops.length) fail("unbalanced ')'");
      ops.pop();
    } else if (tok === "-" && expectOperand) {
      ops.push("neg");
    } else {
      if (expectOperand) fail(`unexpected '${tok}'`);
      while (ops.length && ops.at(-1) !== "(" && PRECEDENCE[ops.at(-1)] >= PRECEDENCE[tok]) output.push(ops.pop());
      ops.push(tok);
      expectOperand = true;
    }
  }
  if (expectOperand) fail("unexpected end of input");
  while (ops.length) {
    const op = ops.pop();
    if (op === "(") fail("unbalanced '('");
    output.push(op);
  }
  return output;
}

function evaluate(rpn) {
  const stack = [];
  for (const item of rpn) {
    if (typeof item === "number") stack.push(item);
    else if (item === "neg") stack.push(-stack.pop());
    else {
      const b = stack.pop();
      const a = stack.pop();
      if (item === "/" && b === 0) fail("division by zero", 3);
      stack.push(item === "+" ? a + b : item === "-" ? a - b : item === "*" ? a * b : a / b);
    }
  }
  return stack[0];
}

const args = process.argv.slice(2);
if (args.length !== 1) {
  console.error("usage: calc EXPRESSION");
  process.exit(2);
}
try {
  const value = Number(evaluate(toRpn(lex(args[0]))).toPrecision(12));
  console.log(Object.is(value, -0) ? "0" : String(value));
} catch (err) {
  if (err.exitCode === undefined) throw err;
  console.error(`error: ${err.message}`);
  process.exit(err.exitCode);
}
