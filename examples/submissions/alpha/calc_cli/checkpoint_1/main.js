#!/usr/bin/env node
// Calculator, checkpoint 1: + - * / with precedence, parentheses and unary minus.
"use strict";

class CalcError extends Error {
  constructor(message, code = 2) {
    super(message);
    this.code = code;
  }
}

function tokenize(source) {
  const tokens = [];
  const pattern = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([-+*/()]))/y;
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (!match) throw new CalcError(`unexpected character ${JSON.stringify(source.slice(at).trim()[0])}`);
    tokens.push(match[1] !== undefined ? { kind: "num", value: Number(match[1]) } : { kind: match[2] });
    at = pattern.lastIndex;
  }
  return tokens;
}

function parse(tokens) {
  let pos = 0;
  const peek = () => tokens[pos]?.kind;
  const take = (kind) => {
    if (peek() !== kind) throw new CalcError(`expected ${kind === "end" ? "end of input" : `'${kind}'`}`);
    pos += 1;
  };
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
    if (peek() === "-") {
      pos += 1;
      return -unary();
    }
    return primary();
  }
  function primary() {
    const token = tokens[pos];
    if (token?.kind === "num") {
      pos += 1;
      return token.value;
    }
    if (token?.kind === "(") {
      pos += 1;
      const value = expression();
      take(")");
      return value;
    }
    throw new CalcError(token ? `unexpected '${token.kind}'` : "unexpected end of input");
  }
  const value = expression();
  if (pos !== tokens.length) throw new CalcError(`unexpected '${tokens[pos].kind === "num" ? tokens[pos].value : tokens[pos].kind}'`);
  return value;
}

function format(value) {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

function main(args) {
  if (args.length !== 1) {
    process.stderr.write('usage: node main.js "EXPRESSION"\n');
    return 2;
  }
  try {
    process.stdout.write(format(parse(tokenize(args[0]))) + "\n");
    return 0;
  } catch (err) {
    if (!(err instanceof CalcError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return err.code;
  }
}

process.exitCode = main(process.argv.slice(2));
