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
