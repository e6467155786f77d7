/**
 * A bounded map, least recently used first out: the compiled statements of one datasource (its
 * shape cache) and the prepared statements of one SQLite connection.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Move to the back: Map iterates in insertion order, so the front is the least recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    if (this.limit <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Compiled statements kept per datasource when its options give no statementCacheSize. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 500;
