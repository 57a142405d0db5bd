import { describe, expect, test } from "vitest";
import { LruCache } from "../src/index";
import { abc } from "./helpers";

describe("LruCache", () => {
  test("stores and returns values", () => {
    const cache = abc();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
    expect(cache.get("zzz")).toBeUndefined();
  });

  test("size counts entries", () => {
    expect(abc().size).toBe(3);
    expect(new LruCache<string, number>(2).size).toBe(0);
  });

  test("setting an existing key replaces its value without growing", () => {
    const cache = abc().set("b", 20);
    expect(cache.get("b")).toBe(20);
    expect(cache.size).toBe(3);
  });

  test("evicts the least recently used entry when full", () => {
    const cache = abc().set("d", 4);
    expect(cache.has("a")).toBe(false);
    expect(cache.keys()).toEqual(["d", "c", "b"]);
  });

  test("get marks an entry as recently used", () => {
    const cache = abc();
    cache.get("a");
    cache.set("d", 4);
    expect(cache.keys()).toEqual(["d", "a", "c"]);
  });

  test("has does not mark an entry as used", () => {
    const cache = abc();
    expect(cache.has("a")).toBe(true);
    cache.set("d", 4);
    expect(cache.has("a")).toBe(false);
  });

  test("delete removes an entry and says whether it was there", () => {
    const cache = abc();
    expect(cache.delete("b")).toBe(true);
    expect(cache.delete("b")).toBe(false);
    expect(cache.keys()).toEqual(["c", "a"]);
  });

  test("keys of any type, compared by identity", () => {
    const key = { id: 1 };
    const cache = new LruCache<object, string>(2).set(key, "x");
    expect(cache.get(key)).toBe("x");
    expect(cache.get({ id: 1 })).toBeUndefined();
  });

  test.each([0, -1, 1.5, Number.NaN])("capacity %s is a RangeError @error", (capacity) => {
    expect(() => new LruCache(capacity)).toThrow(RangeError);
  });
});
