// Type tests: tsc checks them (vitest --typecheck); nothing here runs.
import { describe, expectTypeOf, test } from "vitest";
import { LruCache } from "../src/index";

describe("types @types", () => {
  const cache = new LruCache<string, number>(2);

  test("get gives V or undefined", () => {
    expectTypeOf(cache.get("a")).toEqualTypeOf<number | undefined>();
  });

  test("set returns the cache, so calls chain", () => {
    expectTypeOf(cache.set("a", 1)).toEqualTypeOf<LruCache<string, number>>();
  });

  test("keys gives K[]", () => {
    expectTypeOf(cache.keys()).toEqualTypeOf<string[]>();
  });

  test("a key of the wrong type does not compile", () => {
    // @ts-expect-error the key type is string
    cache.set(1, 2);
  });
});
