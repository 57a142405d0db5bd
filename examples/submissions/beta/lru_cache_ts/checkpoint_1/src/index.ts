import { Yallist, Node } from "yallist";

// A doubly linked list keeps the order of use (head: most recent); a Map finds the nodes.
export class LruCache<K, V> {
  #list = new Yallist<[K, V]>();
  #nodes = new Map<K, Node<[K, V]>>();

  constructor(readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError("bad capacity");
  }

  get size() {
    return this.#nodes.size;
  }

  get(key: K): any {
    const node = this.#nodes.get(key);
    if (!node) return undefined;
    this.#list.unshiftNode(node);
    return node.value[1];
  }

  has(key: K) {
    return this.#nodes.has(key);
  }

  set(key: K, value: V): this {
    const node = this.#nodes.get(key);
    if (node) {
      node.value = [key, value];
      this.#list.unshiftNode(node);
    } else {
      this.#list.unshift([key, value]);
      this.#nodes.set(key, this.#list.head!);
    }
    if (this.#nodes.size > this.capacity) {
      const last = this.#list.tail!;
      this.#list.removeNode(last);
      this.#nodes.delete(last.value[0]);
    }
    return this;
  }

  delete(key: K) {
    const node = this.#nodes.get(key);
    if (!node) return false;
    this.#list.removeNode(node);
    return this.#nodes.delete(key);
  }

  keys(): K[] {
    return this.#list.toArray().map(([key]) => key);
  }
}
