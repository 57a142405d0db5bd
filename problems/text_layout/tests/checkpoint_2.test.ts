// text_layout, checkpoint 2: table(). wrap() and align() must keep checkpoint 1's behaviour:
// checkpoint_1.test.ts runs again (as Regression), and one test here is marked @regression.
import { describe, expect, test } from "vitest";
import { textkit } from "./textkit";

const lines = (...rows: string[]) => rows.join("\n");

describe("table", () => {
  test("renders the header, the separator and the body", async () => {
    const { table } = await textkit();
    expect(table([["name", "qty"], ["bolt", "12"], ["nut", "3"]])).toBe(lines(
      "| name | qty |",
      "| ---- | --- |",
      "| bolt | 12  |",
      "| nut  | 3   |",
    ));
  });

  test("makes every column at least three wide", async () => {
    const { table } = await textkit();
    expect(table([["a", "b"], ["x", ""]])).toBe(lines("| a   | b   |", "| --- | --- |", "| x   |     |"));
  });

  test.each([
    ["left", "| :---- |", "| 7     |"],
    ["right", "| ----: |", "|     7 |"],
    ["center", "| :---: |", "|   7   |"],
  ])("aligns a column %s", async (how, separator, body) => {
    const { table } = await textkit();
    expect(table([["count"], [7]], { align: [how] }).split("\n").slice(1)).toEqual([separator, body]);
  });

  test("writes numbers, booleans and missing values as text", async () => {
    const { table } = await textkit();
    expect(table([["n", "ok", "none"], [1.5, true, null]])).toBe(lines(
      "| n   | ok   | none |",
      "| --- | ---- | ---- |",
      "| 1.5 | true |      |",
    ));
  });

  test("completes short rows with empty cells", async () => {
    const { table } = await textkit();
    expect(table([["name", "qty"], ["bolt", 12], ["nut"]], { align: [undefined, "right"] })).toBe(lines(
      "| name | qty |",
      "| ---- | --: |",
      "| bolt |  12 |",
      "| nut  |     |",
    ));
  });

  test("escapes pipes and flattens line breaks @functionality", async () => {
    const { table } = await textkit();
    expect(table([["expr"], ["a|b"], ["x\r\ny"]])).toBe(lines(
      "| expr |", "| ---- |", "| a\\|b |", "| x y  |",
    ));
  });

  test("truncates long cells to maxWidth", { tags: ["functionality"] }, async () => {
    const { table } = await textkit();
    expect(table([["word"], ["abcdefghij"]], { maxWidth: 5 })).toBe(lines(
      "| word  |", "| ----- |", "| abcd… |",
    ));
  });

  test("sizes columns by code points", { tags: ["unicode"] }, async () => {
    const { table } = await textkit();
    expect(table([["café", "😀"], ["thé", "ok"]])).toBe(lines(
      "| café | 😀   |",
      "| ---- | --- |",
      "| thé  | ok  |",
    ));
  });

  test("rejects a row longer than the header", { tags: ["error"] }, async () => {
    const { table } = await textkit();
    expect(() => table([["a"], ["x"], ["y", "z"]])).toThrow(RangeError);
    expect(() => table([["a"], ["x"], ["y", "z"]])).toThrow(/row 2/);
  });

  test.each([
    ["not an array", "a,b"],
    ["empty", []],
    ["a row that is not an array", [["a"], "b"]],
  ])("rejects rows that are %s @error", async (_what, rows) => {
    const { table } = await textkit();
    expect(() => table(rows)).toThrow(TypeError);
  });

  test("rejects an unknown alignment @error", async () => {
    const { table } = await textkit();
    expect(() => table([["a"]], { align: ["justify"] })).toThrow(/alignment/);
  });
});

test("wrap still cuts long words after the table work @regression", async () => {
  const { wrap } = await textkit();
  expect(wrap("table abcdefghijkl", 5)).toEqual(["table", "abcde", "fghij", "kl"]);
});
