import { LruCache } from "../src/index";

/** A cache of capacity 3 holding a=1, b=2, c=3 (set in that order). */
export function abc(): LruCache<string, number> {
  return new LruCache<string, number>(3).set("a", 1).set("b", 2).set("c", 3);
}
