import { randomBytes, timingSafeEqual } from 'node:crypto'
import { type Clock, systemClock } from '../../core/index.js'
import { AuthHeader, digestCredentials, parseUri, SipHeaderError, type SipRequest } from '../message/index.js'
import { type DigestHashName, digestHa1, digestResponse, parseAlgorithm } from './digest.js'
import { BoundedLru } from './lru.js'
import { issueNonce, MIN_NONCE_SECRET_BYTES, readNonce } from './nonce.js'

/** What the server stores per user: the password, or H(A1) per hash (RFC 2617 §3.2.2.2), which is enough to verify. */
export type StoredSecret = { readonly password: string } | { readonly ha1: Partial<Readonly<Record<DigestHashName, string>>> }

export interface DigestVerifierOptions {
  readonly realm: string
  /** The HMAC key of the nonces, at least 32 bytes; every node verifying the same realm shares it. */
  readonly secret: Buffer
  /** The user's stored secret; undefined for an unknown user. */
  readonly lookup: (username: string) => StoredSecret | undefined
  readonly clock?: Clock
  readonly nonceTtlMs?: number
  /** Challenged in this order, one WWW-Authenticate each (RFC 8760 §2.3: the preferred one first). */
  readonly algorithms?: readonly DigestHashName[]
  /** (nonce, nc) pairs remembered against replay; the least recently used goes first. */
  readonly maxSeenNonceCounts?: number
  /** The longest credentials parameter read; a longer one is refused as `oversize`. */
  readonly maxParamChars?: number
  readonly random?: (size: number) => Buffer
}

export const DEFAULT_DIGEST_VERIFIER = {
  /**
   * 64*T1, the INVITE client transaction's Timer B (§17.1.1.2): a client answers a challenge within
   * one transaction, and a nonce that outlives it only widens the replay window. A slower client
   * gets stale=true and retries without asking anyone (RFC 2617 §3.2.1).
   */
  nonceTtlMs: 32_000,
  /** SHA-256 first (RFC 8760), MD5 for the many trunks that still know nothing else. */
  algorithms: ['SHA-256', 'MD5'] as readonly DigestHashName[],
  /** Evicting a pair still inside the 32 s nonce life takes over 2,000 authenticated requests a second. */
  maxSeenNonceCounts: 65_536,
  maxParamChars: 1024,
} as const

/** Why credentials were refused; each is answered with a fresh challenge (stale=true for `stale`). */
export type DigestRefusal =
  | 'no_credentials'
  | 'malformed'
  | 'oversize'
  | 'wrong_realm'
  | 'unsupported_algorithm'
  | 'qop_required'
  | 'bad_nonce'
  | 'uri_mismatch'
  | 'unknown_user'
  | 'bad_response'
  | 'stale'
  | 'replayed'

export type DigestVerification =
  | { readonly ok: true; readonly username: string }
  | {
      readonly ok: false
      readonly reason: DigestRefusal
      /** The WWW-Authenticate values of the 401 to answer with (§22.1: a UAS challenges with 401). */
      readonly challenge: readonly AuthHeader[]
    }

const NC = /^[0-9a-fA-F]{8}$/

/**
 * The UAS side of Digest (§22.1, §22.4): challenges with stateless HMAC-signed nonces that carry
 * their issue time (like Kamailio's auth module), and verifies Authorization against stored
 * secrets. Expired nonces with an otherwise correct response get stale=true (RFC 7616 §3.3);
 * a (nonce, nc) pair is accepted once (RFC 7616 §3.4: a count seen twice is a replay).
 */
export class DigestVerifier {
  readonly #realm: string
  readonly #secret: Buffer
  readonly #lookup: DigestVerifierOptions['lookup']
  readonly #clock: Clock
  readonly #ttlMs: number
  readonly #algorithms: readonly DigestHashName[]
  readonly #maxParamChars: number
  readonly #random: (size: number) => Buffer
  readonly #seen: BoundedLru<string, true>

  constructor(options: DigestVerifierOptions) {
    if (options.secret.length < MIN_NONCE_SECRET_BYTES) throw new RangeError(`the nonce secret must be at least ${MIN_NONCE_SECRET_BYTES} bytes`)
    this.#ttlMs = options.nonceTtlMs ?? DEFAULT_DIGEST_VERIFIER.nonceTtlMs
    if (!(this.#ttlMs > 0)) throw new RangeError('nonceTtlMs must be positive')
    this.#algorithms = options.algorithms ?? DEFAULT_DIGEST_VERIFIER.algorithms
    if (this.#algorithms.length === 0) throw new RangeError('at least one algorithm must be offered')
    this.#realm = options.realm
    this.#secret = Buffer.from(options.secret)
    this.#lookup = options.lookup
    this.#clock = options.clock ?? systemClock
    this.#maxParamChars = options.maxParamChars ?? DEFAULT_DIGEST_VERIFIER.maxParamChars
    this.#random = options.random ?? randomBytes
    this.#seen = new BoundedLru(options.maxSeenNonceCounts ?? DEFAULT_DIGEST_VERIFIER.maxSeenNonceCounts)
  }

  /** One challenge per algorithm offered, all with one fresh nonce and qop="auth". */
  challenge(options: { stale?: boolean } = {}): AuthHeader[] {
    const nonce = issueNonce(this.#secret, this.#realm, this.#clock.now(), this.#random(8))
    return this.#algorithms.map((hash) => {
      const params: Array<[string, string]> = [
        ['realm', this.#realm],
        ['nonce', nonce],
        ['algorithm', hash],
        ['qop', 'auth'],
      ]
      if (options.stale) params.push(['stale', 'true'])
      return new AuthHeader('Digest', new Map(params))
    })
  }

  /** Checks the request's Authorization for our realm. */
  verify(request: SipRequest): DigestVerification {
    const reason = this.#check(request)
    return typeof reason === 'string' ? { ok: false, reason, challenge: this.challenge({ stale: reason === 'stale' }) } : reason
  }

  #check(request: SipRequest): DigestRefusal | { ok: true; username: string } {
    let fields: readonly AuthHeader[]
    try {
      fields = request.headers.authorization()
    } catch (error) {
      if (error instanceof SipHeaderError) return 'malformed'
      throw error
    }
    const digest = fields.filter((f) => f.isDigest)
    if (digest.length === 0) return 'no_credentials'
    const ours = digest.find((f) => f.param('realm') === this.#realm)
    if (!ours) return 'wrong_realm'
    for (const value of ours.params.values()) if (value.length > this.#maxParamChars) return 'oversize'
    const credentials = digestCredentials(ours)
    if (!credentials) return 'malformed'
    const algorithm = parseAlgorithm(credentials.algorithm)
    // Our challenges name the plain algorithms only: a -sess or unoffered one was not asked for.
    if (!algorithm || algorithm.session || !this.#algorithms.includes(algorithm.hash)) return 'unsupported_algorithm'
    if (credentials.qop !== 'auth') return 'qop_required'
    if (credentials.nc === undefined || !NC.test(credentials.nc) || !credentials.cnonce) return 'malformed'
    const issuedAtMs = readNonce(this.#secret, this.#realm, credentials.nonce)
    const now = this.#clock.now()
    if (issuedAtMs === undefined || issuedAtMs > now) return 'bad_nonce'
    // RFC 2617 §3.2.2.5: the digest-uri names the same resource as the Request-URI.
    if (parseUri(credentials.uri)?.serialize() !== request.uri.serialize()) return 'uri_mismatch'
    const ha1 = this.#ha1(credentials.username, algorithm.hash)
    const expected = digestResponse({
      algorithm,
      // An unknown user is checked against a throwaway H(A1), so it costs what a known one does.
      ha1: ha1 ?? digestHa1(algorithm.hash, credentials.username, this.#realm, this.#random(16).toString('hex')),
      nonce: credentials.nonce,
      method: request.method,
      uri: credentials.uri,
      qop: 'auth',
      nc: credentials.nc,
      cnonce: credentials.cnonce,
    })
    const matches = equalHex(expected, credentials.response)
    if (ha1 === undefined) return 'unknown_user'
    if (!matches) return 'bad_response'
    // Only a correct response learns that its nonce is stale (RFC 7616 §3.3), so a wrong password never loops.
    if (now - issuedAtMs > this.#ttlMs) return 'stale'
    const pair = `${credentials.nonce} ${credentials.nc.toLowerCase()}`
    if (this.#seen.has(pair)) return 'replayed'
    this.#seen.set(pair, true)
    return { ok: true, username: credentials.username }
  }

  #ha1(username: string, hash: DigestHashName): string | undefined {
    const stored = this.#lookup(username)
    if (!stored) return undefined
    if ('password' in stored) return digestHa1(hash, username, this.#realm, stored.password)
    return stored.ha1[hash]?.toLowerCase()
  }
}

/** Constant-time comparison of two hex digests (case-insensitive, as LHEX allows either case on the wire). */
function equalHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase())
  const b = Buffer.from(given.toLowerCase())
  return a.length === b.length && timingSafeEqual(a, b)
}
