import { Yallist, Node } from "yallist";

export interface Options<K, V> {
  ttlMs?: number;
  onEvict?: (key: K, value: V) => void;
}

type Item<K, V> = { key: K; value: V; expires: number };

// A doubly linked list keeps the order of use (head: most recent); a Map finds the nodes.
export class LruCache<K, V> {
  #list = new Yallist<Item<K, V>>();
  #nodes = new Map<K, Node<Item<K, V>>>();
  #ttl: number;
  #onEvict?: (key: K, value: V) => void;

  constructor(readonly capacity: number, options: Options<K, V> = {}) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError("bad capacity");
    if (options.ttlMs !== undefined && !(options.ttlMs > 0 && Number.isFinite(options.ttlMs))) {
      throw new RangeError("bad ttlMs");
    }
    this.#ttl = options.ttlMs ?? Infinity;
    this.#onEvict = options.onEvict;
  }

  #fresh(key: K): Node<Item<K, V>> | undefined {
    const node = this.#nodes.get(key);
    if (node && Date.now() > node.value.expires) {  // still alive at exactly ttlMs
      this.delete(key);
      return undefined;
    }
    return node;
  }

  #prune() {
    for (const key of [...this.#nodes.keys()]) this.#fresh(key);
  }

  get size() {
    this.#prune();
    return this.#nodes.size;
  }

  get(key: K): any {
    const node = this.#fresh(key);
    if (!node) return undefined;
    this.#list.unshiftNode(node);
    return node.value.value;
  }

  peek(key: K) {
    return this.#fresh(key)?.value.value;
  }

  has(key: K) {
    return this.#fresh(key) !== undefined;
  }

  set(key: K, value: V): this {
    const item = { key, value, expires: Date.now() + this.#ttl };
    const node = this.#nodes.get(key);
    if (node) {
      node.value = item;
      this.#list.unshiftNode(node);
    } else {
      this.#list.unshift(item);
      this.#nodes.set(key, this.#list.head!);
    }
    if (this.#nodes.size > this.capacity) {
      const last = this.#list.tail!;
      this.#list.removeNode(last);
      this.#nodes.delete(last.value.key);
      this.#onEvict?.(last.value.key, last.value.value);
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
    this.#prune();
    return this.#list.toArray().map((item) => item.key);
  }
}
