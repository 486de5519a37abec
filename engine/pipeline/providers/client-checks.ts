/** Checks every provider client's constructor makes, so a bad setting fails at configuration, not on the first call. */

/**
 * Checks a provider's base URL when its client is built (a typo fails at configuration, not on
 * the first call) and returns the host, which error messages name instead of the whole URL.
 */
export function baseUrlHost(owner: string, value: string, protocols: readonly string[] = ['http:', 'https:']): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new TypeError(`${owner}: base URL is not a URL`)
  }
  if (!protocols.includes(url.protocol)) throw new TypeError(`${owner}: base URL must use ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`)
  return url.host
}

/** A provider client without a key would fail on every call: refuse to build it. */
export function requireApiKey(owner: string, apiKey: unknown): void {
  if (typeof apiKey !== 'string' || !apiKey) throw new TypeError(`${owner}: apiKey is required`)
}

/** Timeouts, sizes and rates must be positive numbers; a 0 or NaN would hang or refuse everything. */
export function requirePositive<T extends object>(owner: string, options: T, keys: readonly (keyof T & string)[]): void {
  for (const k of keys) {
    const v = options[k]
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new RangeError(`${owner}: ${k} must be > 0`)
  }
}

/**
 * Fetch options every OpenAI-SDK client gets. No redirects: a provider's API does not redirect,
 * and a keyed request should not wander to another URL. Where a request still goes through a
 * fetch (multipart uploads, the embeddings client), undici also clones (tees) the body of every
 * request whose redirect mode is not "error" — ~0.6–0.9 ms of CPU per request. The engine's JSON
 * requests never follow one either (connections.ts).
 */
export const PROVIDER_FETCH_OPTIONS = { redirect: 'error' } as const
