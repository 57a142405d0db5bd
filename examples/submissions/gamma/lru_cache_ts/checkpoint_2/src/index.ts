// Keeps entries in a Map and an array of keys in insertion order.
export class LruCache<K = any, V = any> {
  store: any = new Map();
  order: any[] = [];
  times: any = new Map();

  constructor(public capacity: any, public options: any = {}) {}

  get size() {
    return this.order.length;
  }

  expired(key: any) {
    return this.options.ttlMs && Date.now() - this.times.get(key) >= this.options.ttlMs;
  }

  get(key: any) {
    return this.expired(key) ? undefined : this.store.get(key);
  }

  peek(key: any) {
    return this.get(key);
  }

  has(key: any) {
    return this.store.has(key) && !this.expired(key);
  }

  set(key: any, value: any) {
    if (!this.store.has(key)) this.order.push(key);
    this.store.set(key, value);
    this.times.set(key, Date.now());
    if (this.order.length > this.capacity) {
      const dropped = this.order.pop();
      this.options.onEvict?.(dropped, this.store.get(dropped));
      this.store.delete(dropped);
    }
    return this;
  }

  delete(key: any) {
    this.options.onEvict?.(key, this.store.get(key));
    this.order = this.order.filter((k) => k !== key);
    return this.store.delete(key);
  }

  keys() {
    return [...this.order].reverse();
  }
}
