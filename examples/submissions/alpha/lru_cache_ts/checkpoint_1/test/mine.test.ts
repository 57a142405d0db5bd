import { expect, test } from "vitest";
import { LruCache } from "../src/index";

test("mine", () => {
  expect(new LruCache<string, number>(1).set("a", 1).get("a")).toBe(1);
});
