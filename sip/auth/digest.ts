import { createHash } from 'node:crypto'

/** The hash functions of RFC 7616 §3.3 (and RFC 8760 for SIP), by the name the algorithm directive uses. */
export type DigestHashName = 'MD5' | 'SHA-256' | 'SHA-512-256'

/** An algorithm directive's value: a hash, and whether it is the session variant (`-sess`). */
export interface DigestAlgorithm {
  readonly hash: DigestHashName
  readonly session: boolean
}

const NODE_HASH: Readonly<Record<DigestHashName, string>> = { MD5: 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' }

/**
 * Reads the algorithm directive, case-insensitively (RFC 7616 §3.3 names are tokens). Absent
 * means MD5 (RFC 2617 §3.2.1). Undefined for anything else.
 */
export function parseAlgorithm(value: string | undefined): DigestAlgorithm | undefined {
  if (value === undefined) return { hash: 'MD5', session: false }
  const upper = value.toUpperCase()
  const session = upper.endsWith('-SESS')
  const base = session ? upper.slice(0, -5) : upper
  const hash = (Object.keys(NODE_HASH) as DigestHashName[]).find((h) => h === base)
  return hash === undefined ? undefined : { hash, session }
}

/** The algorithm as written in a header: `MD5`, `SHA-256-sess`, … */
export function algorithmName(algorithm: DigestAlgorithm): string {
  return algorithm.session ? `${algorithm.hash}-sess` : algorithm.hash
}

/** H(data) as lower-case hex (RFC 7616 §3.4: strings hashed as UTF-8). */
export function digestHash(hash: DigestHashName, data: string | Buffer): string {
  return createHash(NODE_HASH[hash]).update(data).digest('hex')
}

/** H(A1) for the plain algorithms: H(username ":" realm ":" password) (RFC 7616 §3.4.2). */
export function digestHa1(hash: DigestHashName, username: string, realm: string, password: string): string {
  return digestHash(hash, `${username}:${realm}:${password}`)
}

export interface DigestResponseInput {
  readonly algorithm: DigestAlgorithm
  /** H(username:realm:password), computed with `algorithm.hash`. */
  readonly ha1: string
  readonly nonce: string
  readonly method: string
  /** The digest-uri exactly as sent in the credentials' uri parameter. */
  readonly uri: string
  /** Absent: the RFC 2069 form, without cnonce and nc. */
  readonly qop?: 'auth' | 'auth-int'
  readonly nc?: string
  readonly cnonce?: string
  /** The message body, hashed into A2 for auth-int. */
  readonly body?: Buffer
}

/**
 * The request-digest (RFC 2617 §3.2.2.1, RFC 7616 §3.4.1):
 * with qop, KD(H(A1), nonce ":" nc ":" cnonce ":" qop ":" H(A2)); without, KD(H(A1), nonce ":" H(A2)),
 * where KD(secret, data) = H(secret ":" data). For -sess, H(A1) = H(H(user:realm:password) ":" nonce ":" cnonce)
 * (§3.4.2); for auth-int, A2 = method ":" uri ":" H(entity-body) (§3.4.3).
 */
export function digestResponse(input: DigestResponseInput): string {
  const { hash } = input.algorithm
  const cnonce = input.cnonce ?? ''
  const ha1 = input.algorithm.session ? digestHash(hash, `${input.ha1}:${input.nonce}:${cnonce}`) : input.ha1
  const a2 = input.qop === 'auth-int' ? `${input.method}:${input.uri}:${digestHash(hash, input.body ?? Buffer.alloc(0))}` : `${input.method}:${input.uri}`
  const ha2 = digestHash(hash, a2)
  const data = input.qop === undefined ? `${input.nonce}:${ha2}` : `${input.nonce}:${input.nc ?? ''}:${cnonce}:${input.qop}:${ha2}`
  return digestHash(hash, `${ha1}:${data}`)
}

/** nc-value = 8LHEX (RFC 2617 §3.2.2): the count written as eight hex digits. */
export function formatNonceCount(count: number): string {
  return count.toString(16).padStart(8, '0')
}
