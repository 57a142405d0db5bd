// text_layout, checkpoint 1: wrap() and align().
// Groups: unmarked tests are Core; vitest tags and @word title tags select the others
// (`unicode` is this problem's custom marker, in the Functionality group).
import { describe, expect, test } from "vitest";
import { textkit } from "./textkit";

describe("wrap", () => {
  test.each([
    ["the quick brown fox", 10, ["the quick", "brown fox"]],
    ["one two three four five", 9, ["one two", "three", "four five"]],
    ["exactly ten", 11, ["exactly ten"]],
  ])("fills lines greedily: %j at width %i", async (text, width, expected) => {
    const { wrap } = await textkit();
    expect(wrap(text, width)).toEqual(expected);
  });

  test("collapses runs of whitespace and line breaks", async () => {
    const { wrap } = await textkit();
    expect(wrap("  alpha \n\n beta\tgamma  ", 20)).toEqual(["alpha beta gamma"]);
  });

  test("text without words gives no line", async () => {
    const { wrap } = await textkit();
    expect(wrap("", 5)).toEqual([]);
    expect(wrap(" \n\t ", 5)).toEqual([]);
  });

  test("cuts words longer than the width @functionality", async () => {
    const { wrap } = await textkit();
    expect(wrap("abcdefghij kl", 4)).toEqual(["abcd", "efgh", "ij", "kl"]);
    expect(wrap("go abcdefgh", 3)).toEqual(["go", "abc", "def", "gh"]);
  });

  test("counts emoji as one code point each @unicode", async () => {
    const { wrap } = await textkit();
    expect(wrap("😀😀 😀 😀😀😀", 3)).toEqual(["😀😀", "😀", "😀😀😀"]);
  });

  test.each([0, -1, 2.5, "3"])("rejects width %j", { tags: ["error"] }, async (width) => {
    const { wrap } = await textkit();
    expect(() => wrap("some text", width)).toThrow(RangeError);
    expect(() => wrap("some text", width)).toThrow(/width/);
  });

  test("rejects text that is not a string @error", async () => {
    const { wrap } = await textkit();
    expect(() => wrap(42, 10)).toThrow(TypeError);
  });
});

describe("align", () => {
  test.each([
    ["left", "ab   "],
    ["right", "   ab"],
    ["center", " ab  "],
  ])("pads %s", async (how, expected) => {
    const { align } = await textkit();
    expect(align("ab", 5, how)).toBe(expected);
  });

  test("is left by default and leaves long lines alone", { tags: ["functionality"] }, async () => {
    const { align } = await textkit();
    expect(align("ab", 4)).toBe("ab  ");
    expect(align("abcdef", 4, "center")).toBe("abcdef");
  });

  test("pads accented text by code points", { tags: ["unicode"] }, async () => {
    const { align } = await textkit();
    expect(align("né", 4, "right")).toBe("  né");
    expect(align("🙂", 3, "center")).toBe(" 🙂 ");
  });

  test("rejects an unknown alignment @error", async () => {
    const { align } = await textkit();
    expect(() => align("ab", 5, "middle")).toThrow(RangeError);
    expect(() => align("ab", 5, "middle")).toThrow(/alignment/);
  });
});
