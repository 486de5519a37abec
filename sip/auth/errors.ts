/** Why a Digest challenge could not be answered. Stable codes; messages never echo a secret. */
export type DigestErrorCode =
  /** The response is not a 401 or 407, or carries no Digest challenge of the matching field. */
  | 'no_challenge'
  /** A Digest challenge without realm or nonce, or with a parameter that cannot be read. */
  | 'malformed_challenge'
  /** An algorithm other than MD5, SHA-256, SHA-512-256 and their -sess forms (RFC 7616 §3.3). */
  | 'unsupported_algorithm'
  /** qop-options naming neither auth nor auth-int, or a -sess algorithm without qop (RFC 2617 §3.2.2). */
  | 'unsupported_qop'
  /** No account answers the challenge's realm (§22.2: the UA must not guess). */
  | 'no_credentials'
  /** Our credentials for this realm were refused with a challenge that is not stale (§22.2: do not retry). */
  | 'credentials_rejected'
  /** A parameter longer than the configured bound. */
  | 'oversize'

export class DigestError extends Error {
  constructor(
    readonly code: DigestErrorCode,
    message: string,
    /** The challenge's realm, when one was read. */
    readonly realm?: string,
  ) {
    super(message)
    this.name = 'DigestError'
  }
}

/** What the digest client returns instead of throwing: a bad challenge is the peer's fault, not ours. */
export type DigestResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: DigestError }

export function fail<T>(code: DigestErrorCode, message: string, realm?: string): DigestResult<T> {
  return { ok: false, error: new DigestError(code, message, realm) }
}
