import { randomBytes } from 'node:crypto'
import { AuthHeader, SipHeaderError, type SipResponse } from '../message/index.js'
import { type ReadChallenge, readChallenge } from './challenge.js'
import { algorithmName, digestHa1, digestResponse, formatNonceCount } from './digest.js'
import { type DigestError, type DigestResult, fail } from './errors.js'
import { BoundedLru } from './lru.js'

/** A username and password, for one realm or (realm absent) for whichever realm challenges. */
export interface DigestAccount {
  readonly username: string
  readonly password: string
  /** Absent: answer any realm, as trunks that name no realm in their settings expect. */
  readonly realm?: string
}

/** What the request-digest covers (RFC 2617 §3.2.2.1): the method, the Request-URI as sent, the body. */
export interface DigestRequestInfo {
  readonly method: string
  /** The Request-URI exactly as written on the request line; sent back as the uri parameter. */
  readonly uri: string
  readonly body?: Buffer
}

/** One Authorization (answering 401) or Proxy-Authorization (answering 407) value. */
export interface AuthorizationField {
  readonly name: 'Authorization' | 'Proxy-Authorization'
  readonly realm: string
  readonly header: AuthHeader
}

export interface DigestClientOptions {
  readonly accounts: readonly DigestAccount[]
  /** The cnonce source; crypto.randomBytes unless a test injects a fixed one. */
  readonly random?: (size: number) => Buffer
  /** Realms whose latest nonce is kept for pre-emptive credentials; the least recently used goes first. */
  readonly maxRealms?: number
  /** The longest challenge parameter read; a longer one is refused as `oversize`. */
  readonly maxParamChars?: number
  /** Random bytes per cnonce, written as hex. */
  readonly cnonceBytes?: number
}

export const DEFAULT_DIGEST_CLIENT = {
  /** A UA talks to a registrar, an outbound proxy and perhaps a trunk: a handful of realms. */
  maxRealms: 16,
  /** Nonces seen in practice are 16-64 characters; 1 KiB leaves room without letting a peer fill memory. */
  maxParamChars: 1024,
  cnonceBytes: 16,
} as const

/** The latest nonce of a realm and how many requests it has signed (nc, RFC 2617 §3.2.2). */
interface NonceState {
  readonly challenge: ReadChallenge
  readonly name: AuthorizationField['name']
  readonly account: DigestAccount
  count: number
  /** -sess: the first cnonce is kept for the nonce's life, so H(A1) is the same whichever way a server reads §3.2.2.2. */
  sessionCnonce?: string
}

/**
 * The UAC side of Digest (RFC 3261 §22.2, RFC 2617, RFC 7616, RFC 8760): answers 401/407
 * challenges and keeps each realm's nonce (bounded, LRU) so later requests (a re-REGISTER, an
 * in-dialog re-INVITE) can carry credentials pre-emptively with the next nonce count (§22.3).
 */
export class DigestClient {
  readonly #accounts: readonly DigestAccount[]
  readonly #random: (size: number) => Buffer
  readonly #maxParamChars: number
  readonly #cnonceBytes: number
  readonly #nonces: BoundedLru<string, NonceState>

  constructor(options: DigestClientOptions) {
    const maxRealms = options.maxRealms ?? DEFAULT_DIGEST_CLIENT.maxRealms
    this.#maxParamChars = options.maxParamChars ?? DEFAULT_DIGEST_CLIENT.maxParamChars
    this.#cnonceBytes = options.cnonceBytes ?? DEFAULT_DIGEST_CLIENT.cnonceBytes
    if (!Number.isInteger(this.#maxParamChars) || this.#maxParamChars < 1) throw new RangeError('maxParamChars must be a positive integer')
    if (!Number.isInteger(this.#cnonceBytes) || this.#cnonceBytes < 4) throw new RangeError('cnonceBytes must be an integer of at least 4')
    this.#accounts = [...options.accounts]
    this.#random = options.random ?? randomBytes
    this.#nonces = new BoundedLru(maxRealms)
  }

  /**
   * Answers one challenge: `proxy` for Proxy-Authenticate (407). A new nonce counts from 1; the
   * nonce already cached for the realm keeps counting, since nc counts requests per nonce.
   */
  answer(header: AuthHeader, proxy: boolean, request: DigestRequestInfo): DigestResult<AuthorizationField> {
    const read = readChallenge(header, this.#maxParamChars)
    if (!read.ok) return read
    const challenge = read.value
    const account = this.#accountFor(challenge.realm)
    if (!account) return fail('no_credentials', 'no account for the challenge realm', challenge.realm)
    const previous = this.#nonces.get(challenge.realm)
    const count = previous?.challenge.nonce === challenge.nonce ? previous.count : 0
    const state: NonceState = { challenge, name: proxy ? 'Proxy-Authorization' : 'Authorization', account, count }
    this.#nonces.set(challenge.realm, state)
    return { ok: true, value: this.#sign(state, request) }
  }

  /**
   * Answers a 401's WWW-Authenticate or a 407's Proxy-Authenticate challenges: one field per realm
   * (§22.3), each from the topmost challenge of that realm with an algorithm we support (RFC 8760 §2.4).
   * Fails when any realm cannot be answered, since a request missing one realm's credentials is challenged again.
   */
  answerResponse(response: SipResponse, request: DigestRequestInfo): DigestResult<AuthorizationField[]> {
    const headers = challengesOf(response)
    if (!headers.ok) return headers
    const chosen = new Map<string, AuthHeader>()
    const errors = new Map<string, DigestError>()
    for (const header of headers.value) {
      const realm = header.param('realm')
      const read = readChallenge(header, this.#maxParamChars)
      if (!read.ok) {
        if (realm === undefined || read.error.code === 'oversize') return read
        if (!errors.has(realm)) errors.set(realm, read.error)
      } else if (!chosen.has(realm!)) chosen.set(realm!, header)
    }
    for (const [realm, error] of errors) if (!chosen.has(realm)) return { ok: false, error }
    const fields: AuthorizationField[] = []
    for (const header of chosen.values()) {
      const answered = this.answer(header, response.status === 407, request)
      if (!answered.ok) return answered
      fields.push(answered.value)
    }
    return { ok: true, value: fields }
  }

  /**
   * Credentials for `realm` from its cached nonce with the next nonce count, for a request sent
   * before any challenge (§22.3); undefined when no nonce is cached or its count is spent.
   */
  preemptive(realm: string, request: DigestRequestInfo): AuthorizationField | undefined {
    const state = this.#nonces.get(realm)
    if (!state || state.count >= 0xffffffff) return undefined
    return this.#sign(state, request)
  }

  /** Drops a realm's nonce (its credentials were refused, or the registration ended). */
  forget(realm: string): void {
    this.#nonces.delete(realm)
  }

  #accountFor(realm: string): DigestAccount | undefined {
    return this.#accounts.find((a) => a.realm === realm) ?? this.#accounts.find((a) => a.realm === undefined)
  }

  #sign(state: NonceState, request: DigestRequestInfo): AuthorizationField {
    const { challenge, account } = state
    state.count++
    const nc = formatNonceCount(state.count)
    let cnonce: string | undefined
    if (challenge.qop !== undefined) {
      cnonce = challenge.algorithm.session ? (state.sessionCnonce ??= this.#cnonce()) : this.#cnonce()
    }
    const response = digestResponse({
      algorithm: challenge.algorithm,
      ha1: digestHa1(challenge.algorithm.hash, account.username, challenge.realm, account.password),
      nonce: challenge.nonce,
      method: request.method,
      uri: request.uri,
      ...(challenge.qop === undefined ? {} : { qop: challenge.qop, nc, cnonce }),
      ...(request.body === undefined ? {} : { body: request.body }),
    })
    // RFC 2617 §3.2.2's order; cnonce, qop and nc only with a qop; opaque echoed unchanged.
    const params: Array<[string, string]> = [
      ['username', account.username],
      ['realm', challenge.realm],
      ['nonce', challenge.nonce],
      ['uri', request.uri],
      ['response', response],
    ]
    if (challenge.algorithmGiven) params.push(['algorithm', algorithmName(challenge.algorithm)])
    if (challenge.qop !== undefined && cnonce !== undefined) params.push(['cnonce', cnonce], ['qop', challenge.qop], ['nc', nc])
    if (challenge.opaque !== undefined) params.push(['opaque', challenge.opaque])
    return { name: state.name, realm: challenge.realm, header: new AuthHeader('Digest', new Map(params)) }
  }

  #cnonce(): string {
    return this.#random(this.#cnonceBytes).toString('hex')
  }
}

/** The Digest challenges of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate), in order. */
export function challengesOf(response: SipResponse): DigestResult<readonly AuthHeader[]> {
  if (response.status !== 401 && response.status !== 407) return fail('no_challenge', `a ${response.status} is not a challenge`)
  let all: readonly AuthHeader[]
  try {
    all = response.status === 401 ? response.headers.wwwAuthenticate() : response.headers.proxyAuthenticate()
  } catch (error) {
    // Only a response built in code can hold an unreadable field: parsed ones were validated.
    if (error instanceof SipHeaderError) return fail('malformed_challenge', `${error.header} field does not parse`)
    throw error
  }
  const digest = all.filter((h) => h.isDigest)
  return digest.length > 0 ? { ok: true, value: digest } : fail('no_challenge', `the ${response.status} carries no Digest challenge`)
}
