/**
 * Small in-memory caches used by the API client.
 */

/** A key-value store, abstract so that tests can swap the backend. */
export abstract class Store<K, V> {
  /** Returns the value stored under key, if any. */
  abstract get(key: K): V | undefined;

  /** Stores value under key. */
  abstract set(key: K, value: V): void;

  abstract delete(key: K): boolean;

  /** Returns the value under key, computing and storing it when missing. */
  getOrCompute(key: K, compute: (key: K) => V): V {
    const existing = this.get(key);
    if (existing !== undefined) {
      return existing;
    }
    const value = compute(key);
    this.set(key, value);
    return value;
  }
}

/** A Store backed by a Map, without eviction. */
export class MemoryStore<K, V> extends Store<K, V> {
  protected readonly entries = new Map<K, V>();

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Number of stored entries. */
  get size(): number {
    return this.entries.size;
  }
}

/** A least-recently-used cache holding at most `capacity` entries. */
export class LruCache<K, V> extends MemoryStore<K, V> {
  constructor(private readonly capacity: number) {
    super();
    if (capacity <= 0) {
      throw new RangeError(`capacity must be positive, got ${capacity}`);
    }
  }

  override get(key: K): V | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      // Re-insert the entry to mark it as the most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  override set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      this.evictOldest();
    }
  }

  /** Drops the least recently used entry. */
  private evictOldest(): void {
    const oldest = this.entries.keys().next();
    if (!oldest.done) {
      this.entries.delete(oldest.value);
    }
  }
}

/** Creates a cache sized for user lookups. */
export const createCache = <K, V>(capacity = 100): LruCache<K, V> => new LruCache<K, V>(capacity);
