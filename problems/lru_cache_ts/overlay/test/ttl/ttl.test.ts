import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { LruCache } from "../../src/index";

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
});
afterEach(() => {
  vi.useRealTimers();
});

describe("time to live", () => {
  test("an entry lives for ttlMs after it is set", () => {
    const cache = new LruCache<string, number>(5, { ttlMs: 1000 }).set("a", 1);
    vi.advanceTimersByTime(999);
    expect(cache.get("a")).toBe(1);
    vi.advanceTimersByTime(1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.has("a")).toBe(false);
  });

  test("setting again restarts its time", () => {
    const cache = new LruCache<string, number>(5, { ttlMs: 1000 }).set("a", 1);
    vi.advanceTimersByTime(600);
    cache.set("a", 2);
    vi.advanceTimersByTime(600);
    expect(cache.get("a")).toBe(2);
  });

  test("size and keys leave expired entries out", () => {
    const cache = new LruCache<string, number>(5, { ttlMs: 100 }).set("a", 1);
    vi.advanceTimersByTime(50);
    cache.set("b", 2);
    vi.advanceTimersByTime(60);
    expect(cache.size).toBe(1);
    expect(cache.keys()).toEqual(["b"]);
  });

  test("without ttlMs entries never expire", () => {
    const cache = new LruCache<string, number>(5).set("a", 1);
    vi.advanceTimersByTime(10 ** 9);
    expect(cache.get("a")).toBe(1);
  });

  test.each([0, -5, Number.POSITIVE_INFINITY])("ttlMs %s is a RangeError @error", (ttlMs) => {
    expect(() => new LruCache(2, { ttlMs })).toThrow(RangeError);
  });
});
