import { describe, expect, test, vi } from "vitest";
import { LruCache } from "../../src/index";

describe("peek and onEvict", () => {
  test("peek returns a value without marking it used", () => {
    const cache = new LruCache<string, number>(2).set("a", 1).set("b", 2);
    expect(cache.peek("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.has("a")).toBe(false);
  });

  test("onEvict gets the key and value pushed out by capacity", () => {
    const onEvict = vi.fn();
    const cache = new LruCache<string, number>(2, { onEvict }).set("a", 1).set("b", 2);
    cache.set("c", 3);
    expect(onEvict).toHaveBeenCalledTimes(1);
    expect(onEvict).toHaveBeenCalledWith("a", 1);
  });

  test("onEvict is not called by delete or by replacing a value", () => {
    const onEvict = vi.fn();
    const cache = new LruCache<string, number>(2, { onEvict }).set("a", 1);
    cache.set("a", 5);
    cache.delete("a");
    expect(onEvict).not.toHaveBeenCalled();
  });
});
