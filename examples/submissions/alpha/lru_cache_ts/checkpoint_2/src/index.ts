export interface LruOptions<K, V> {
  /** Milliseconds an entry lives after it is set. */
  ttlMs?: number;
  /** Called with the entry that capacity pushed out. */
  onEvict?: (key: K, value: V) => void;
}

interface Entry<V> {
  value: V;
  expires: number;
}

/** A least-recently-used cache: a Map keeps insertion order, so the first key is the oldest. */
export class LruCache<K, V> {
  readonly capacity: number;
  #entries = new Map<K, Entry<V>>();
  #ttl: number;
  #onEvict?: (key: K, value: V) => void;

  constructor(capacity: number, options: LruOptions<K, V> = {}) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
    const { ttlMs } = options;
    if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs > 0)) {
      throw new RangeError(`ttlMs must be a positive finite number, got ${ttlMs}`);
    }
    this.capacity = capacity;
    this.#ttl = ttlMs ?? Number.POSITIVE_INFINITY;
    this.#onEvict = options.onEvict;
  }

  #live(key: K): Entry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry && Date.now() >= entry.expires) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    for (const key of [...this.#entries.keys()]) this.#live(key);
  }

  get size(): number {
    this.#sweep();
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#live(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  peek(key: K): V | undefined {
    return this.#live(key)?.value;
  }

  has(key: K): boolean {
    return this.#live(key) !== undefined;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: Date.now() + this.#ttl });
    if (this.#entries.size > this.capacity) {
      this.#sweep();
    }
    if (this.#entries.size > this.capacity) {
      const [oldest, entry] = this.#entries.entries().next().value as [K, Entry<V>];
      this.#entries.delete(oldest);
      this.#onEvict?.(oldest, entry.value);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Keys, most recently used first. */
  keys(): K[] {
    this.#sweep();
    return [...this.#entries.keys()].reverse();
  }
}
