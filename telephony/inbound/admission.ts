import type { PhoneNumberRow, Repos, SipTrunkRow } from '../../db/index.js'
import type { DigestVerifier, Peer, SipRequest } from '../../sip/index.js'
import { callerNumber, dialledNumbers } from './numbers.js'

export type Refusal = { ok: false; status: number; reason: string; headers?: [string, string][]; why: string }
export type Admission = { ok: true; number: PhoneNumberRow; trunk: SipTrunkRow; calledNumber: string; callerNumber: string } | Refusal

export interface AdmissionDeps {
  repos: Pick<Repos, 'phoneNumbers' | 'sipTrunks'>
  /** Whether `address` may send this trunk's calls without digest (its allowed sources, its carrier's addresses). */
  isTrunkSource(trunk: SipTrunkRow, address: string): boolean
  /** The trunk's digest verifier, undefined when it has no credentials to check against. */
  verifierFor(trunk: SipTrunkRow): DigestVerifier | undefined
}

/**
 * Who answers an INVITE, or why nobody does (issue #21 item 4), in this order so a stranger learns
 * as little as possible: an unknown number → 404; a source that is neither an allowed address of
 * the number's trunk nor authenticated with its credentials → 401 with a challenge (no or stale
 * credentials) or 403; a number no agent answers → 480. Capacity, media and the agent's readiness
 * are checked after, by the call.
 */
export function admitInvite(request: SipRequest, source: Peer, deps: AdmissionDeps): Admission {
  let number: PhoneNumberRow | undefined
  let calledNumber = ''
  for (const candidate of dialledNumbers(request)) {
    number = deps.repos.phoneNumbers.byNumber(candidate)
    if (number) {
      calledNumber = candidate
      break
    }
  }
  if (!number) return { ok: false, status: 404, reason: 'Not Found', why: 'no such number' }
  const trunk = deps.repos.sipTrunks.byId(number.trunk_id)
  if (!trunk) return { ok: false, status: 404, reason: 'Not Found', why: 'the number has no trunk' }
  if (!deps.isTrunkSource(trunk, source.host)) {
    const verifier = deps.verifierFor(trunk)
    if (!verifier) return { ok: false, status: 403, reason: 'Forbidden', why: 'source not allowed and the trunk has no credentials' }
    const verdict = verifier.verify(request)
    if (!verdict.ok) {
      // RFC 3261 §22.2: challenge a request without (usable) credentials; refuse wrong ones outright.
      if (verdict.reason === 'no_credentials' || verdict.reason === 'stale' || verdict.reason === 'wrong_realm') {
        return {
          ok: false,
          status: 401,
          reason: 'Unauthorized',
          headers: verdict.challenge.map((c) => ['WWW-Authenticate', c.serialize()] as [string, string]),
          why: `authentication needed (${verdict.reason})`,
        }
      }
      return { ok: false, status: 403, reason: 'Forbidden', why: `authentication failed (${verdict.reason})` }
    }
  }
  if (number.workflow_id === null) return { ok: false, status: 480, reason: 'Temporarily Unavailable', why: 'no agent answers this number' }
  return { ok: true, number, trunk, calledNumber, callerNumber: callerNumber(request) }
}
