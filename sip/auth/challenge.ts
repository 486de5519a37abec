import { type AuthHeader, digestChallenge } from '../message/index.js'
import { type DigestAlgorithm, parseAlgorithm } from './digest.js'
import { type DigestResult, fail } from './errors.js'

/** A Digest challenge checked and reduced to what the client answers with. */
export interface ReadChallenge {
  readonly realm: string
  readonly nonce: string
  readonly opaque?: string
  readonly algorithm: DigestAlgorithm
  /** The algorithm directive as the challenge wrote it; echoed only when present (RFC 2617 §3.2.2). */
  readonly algorithmGiven: boolean
  /** The qop chosen: auth when offered, auth-int when it is the only one offered, none for RFC 2069 servers. */
  readonly qop: 'auth' | 'auth-int' | undefined
  readonly stale: boolean
}

/** Reads one WWW-Authenticate / Proxy-Authenticate value; every failure is a typed error. */
export function readChallenge(header: AuthHeader, maxParamChars: number): DigestResult<ReadChallenge> {
  const realmText = header.param('realm')
  for (const [name, value] of header.params) {
    if (value.length > maxParamChars) return fail('oversize', `challenge parameter ${name} over ${maxParamChars} characters`, realmText)
  }
  const challenge = digestChallenge(header)
  if (!challenge) return fail('malformed_challenge', 'Digest challenge without realm or nonce', realmText)
  const { realm } = challenge
  const algorithm = parseAlgorithm(challenge.algorithm)
  if (!algorithm) return fail('unsupported_algorithm', 'unsupported Digest algorithm', realm)
  let qop: ReadChallenge['qop']
  if (challenge.qop.includes('auth')) qop = 'auth'
  else if (challenge.qop.includes('auth-int')) qop = 'auth-int'
  else if (challenge.qop.length > 0) return fail('unsupported_qop', 'qop-options name neither auth nor auth-int', realm)
  // -sess hashes the cnonce into A1, and a cnonce is only sent with a qop (RFC 2617 §3.2.2).
  if (qop === undefined && algorithm.session) return fail('unsupported_qop', 'a -sess algorithm needs a qop', realm)
  return {
    ok: true,
    value: {
      realm,
      nonce: challenge.nonce,
      ...(challenge.opaque === undefined ? {} : { opaque: challenge.opaque }),
      algorithm,
      algorithmGiven: challenge.algorithm !== undefined,
      qop,
      stale: challenge.stale,
    },
  }
}
