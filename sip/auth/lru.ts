/**
 * A Map bounded to `max` entries that drops the least recently used one (Map keeps insertion order;
 * a hit re-inserts). lru-cache would serve, but it is in the tree only through tap, a dev dependency,
 * so a production install would not have it.
 */
export class BoundedLru<K, V> {
  readonly #map = new Map<K, V>()

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`LRU size must be a positive integer, got ${max}`)
  }

  get size(): number {
    return this.#map.size
  }

  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined
    const value = this.#map.get(key) as V
    this.#map.delete(key)
    this.#map.set(key, value)
    return value
  }

  has(key: K): boolean {
    return this.#map.has(key)
  }

  set(key: K, value: V): void {
    this.#map.delete(key)
    this.#map.set(key, value)
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value as K)
  }

  delete(key: K): void {
    this.#map.delete(key)
  }
}
