import { isToken, isWs, quote, scanQuoted, skipWs } from './charset.js'

/** token68 (RFC 7235 §2.1), the form of Bearer credentials in SIP (RFC 8898 §6). */
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/

/**
 * WWW-Authenticate, Proxy-Authenticate, Authorization and Proxy-Authorization (§20.27, §20.28,
 * §20.7, §20.44; RFC 2617 §3.2): auth-scheme LWS auth-param *(COMMA auth-param), each
 * auth-param = name EQUAL ( token / quoted-string ), or auth-scheme LWS token68. These fields are
 * never split on commas. Names are case-insensitive (kept lower-cased); values are kept unquoted.
 */
export class AuthHeader {
  constructor(
    readonly scheme: string,
    readonly params: ReadonlyMap<string, string>,
    readonly token68?: string,
  ) {}

  get isDigest(): boolean {
    return this.scheme.toLowerCase() === 'digest'
  }

  param(name: string): string | undefined {
    return this.params.get(name.toLowerCase())
  }

  /** Quotes every value except those RFC 2617 writes as tokens (algorithm, stale, nc, and qop in credentials). */
  serialize(): string {
    if (this.token68 !== undefined) return `${this.scheme} ${this.token68}`
    const parts: string[] = []
    const credentials = this.params.has('response')
    for (const [name, value] of this.params) {
      const bare = name === 'algorithm' || name === 'stale' || name === 'nc' || (name === 'qop' && credentials)
      parts.push(`${name}=${bare && isToken(value) ? value : quote(value)}`)
    }
    return `${this.scheme} ${parts.join(', ')}`
  }

  static parse(value: string): AuthHeader | undefined {
    const s = value
    let i = skipWs(s, 0)
    const schemeStart = i
    while (i < s.length && !isWs(s.charCodeAt(i))) i++
    const scheme = s.slice(schemeStart, i)
    if (!isToken(scheme)) return undefined
    const params = new Map<string, string>()
    i = skipWs(s, i)
    if (scheme.toLowerCase() !== 'digest' && TOKEN68.test(s.slice(i))) return new AuthHeader(scheme, params, s.slice(i))
    while (i < s.length) {
      const nameStart = i
      while (i < s.length && s[i] !== '=' && s[i] !== ',' && !isWs(s.charCodeAt(i))) i++
      const name = s.slice(nameStart, i).toLowerCase()
      i = skipWs(s, i)
      if (!isToken(name) || s[i] !== '=' || params.has(name)) return undefined
      i = skipWs(s, i + 1)
      let paramValue: string
      if (s[i] === '"') {
        const q = scanQuoted(s, i)
        if (!q) return undefined
        paramValue = q.text
        i = q.end
      } else {
        const valueStart = i
        while (i < s.length && s[i] !== ',' && !isWs(s.charCodeAt(i))) i++
        paramValue = s.slice(valueStart, i)
        if (!isToken(paramValue)) return undefined
      }
      params.set(name, paramValue)
      i = skipWs(s, i)
      if (i < s.length) {
        if (s[i] !== ',') return undefined
        i = skipWs(s, i + 1)
        if (i === s.length) return undefined
      }
    }
    return params.size > 0 ? new AuthHeader(scheme, params) : undefined
  }
}

/** A Digest challenge (RFC 2617 §3.2.1, RFC 7616 §3.3) read from WWW-/Proxy-Authenticate. */
export interface DigestChallenge {
  readonly realm: string
  readonly nonce: string
  readonly opaque?: string
  /** As given, e.g. MD5 or SHA-256; absent means MD5. */
  readonly algorithm?: string
  /** qop-options, e.g. ['auth', 'auth-int']; empty when the server sent none. */
  readonly qop: readonly string[]
  readonly stale: boolean
  readonly domain?: string
}

/** The challenge's Digest parameters; undefined when not Digest or without realm and nonce. */
export function digestChallenge(header: AuthHeader): DigestChallenge | undefined {
  const realm = header.param('realm')
  const nonce = header.param('nonce')
  if (!header.isDigest || realm === undefined || nonce === undefined) return undefined
  const qop = header.param('qop')
  return {
    realm,
    nonce,
    opaque: header.param('opaque'),
    algorithm: header.param('algorithm'),
    qop:
      qop === undefined
        ? []
        : qop
            .split(',')
            .map((q) => q.trim().toLowerCase())
            .filter((q) => q !== ''),
    stale: header.param('stale')?.toLowerCase() === 'true',
    domain: header.param('domain'),
  }
}

/** Digest credentials (RFC 2617 §3.2.2) read from Authorization / Proxy-Authorization. */
export interface DigestCredentials {
  readonly username: string
  readonly realm: string
  readonly nonce: string
  readonly uri: string
  readonly response: string
  readonly algorithm?: string
  readonly cnonce?: string
  readonly opaque?: string
  readonly qop?: string
  readonly nc?: string
}

export function digestCredentials(header: AuthHeader): DigestCredentials | undefined {
  const required = ['username', 'realm', 'nonce', 'uri', 'response'].map((n) => header.param(n))
  if (!header.isDigest || required.some((v) => v === undefined)) return undefined
  const [username, realm, nonce, uri, response] = required as [string, string, string, string, string]
  return {
    username,
    realm,
    nonce,
    uri,
    response,
    algorithm: header.param('algorithm'),
    cnonce: header.param('cnonce'),
    opaque: header.param('opaque'),
    qop: header.param('qop'),
    nc: header.param('nc'),
  }
}
