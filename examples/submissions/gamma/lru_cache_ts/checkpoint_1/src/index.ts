// Keeps entries in a plain object and an array of keys in insertion order.
export class LruCache<K = any, V = any> {
  store: any = new Map();
  order: any[] = [];

  constructor(public capacity: any) {}

  get size() {
    return this.order.length;
  }

  get(key: any) {
    return this.store.get(key);
  }

  has(key: any) {
    return this.store.has(key);
  }

  set(key: any, value: any) {
    if (!this.store.has(key)) this.order.push(key);
    this.store.set(key, value);
    if (this.order.length > this.capacity) {
      const dropped = this.order.pop();  // drops the newest instead of the oldest
      this.store.delete(dropped);
    }
    return this;
  }

  delete(key: any) {
    this.order = this.order.filter((k) => k !== key);
    return this.store.delete(key);
  }

  keys() {
    return [...this.order].reverse();
  }
}
