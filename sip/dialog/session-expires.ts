import type { SipHeaders, SipRequest, SipResponse } from '../message/index.js'

/** RFC 4028 §4-5: no session interval or Min-SE below 90 seconds. */
export const MIN_SESSION_INTERVAL_S = 90
/** delta-seconds (§25.1 of RFC 3261), at most 2**32 - 1. */
const MAX_DELTA_S = 4294967295

export type Refresher = 'uac' | 'uas'

const DELTA = /^[0-9]{1,10}$/
const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/

function parseDelta(text: string): number | undefined {
  if (!DELTA.test(text)) return undefined
  const value = Number(text)
  return value <= MAX_DELTA_S ? value : undefined
}

/** `;name[=value]` generic-params after a delta-seconds (RFC 3261 §25.1); undefined when malformed. */
function parseParams(parts: readonly string[]): Map<string, string | null> | undefined {
  const params = new Map<string, string | null>()
  for (const part of parts) {
    const eq = part.indexOf('=')
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase()
    const value = eq < 0 ? null : part.slice(eq + 1).trim()
    if (!TOKEN.test(name) || params.has(name) || (value !== null && !/^([A-Za-z0-9.!%*_+`'~:[\]-]+|"([^"\\]|\\.)*")$/.test(value))) return undefined
    params.set(name, value)
  }
  return params
}

/**
 * Session-Expires = delta-seconds *( SEMI se-params ), se-params = refresher-param / generic-param,
 * refresher-param = "refresher" EQUAL ("uas" / "uac") (RFC 4028 §4). The compact form `x` is
 * expanded by the message layer.
 */
export class SessionExpires {
  constructor(
    readonly deltaSeconds: number,
    readonly refresher?: Refresher,
    /** Other parameters, as written. */
    readonly params: ReadonlyMap<string, string | null> = new Map(),
  ) {
    if (!Number.isInteger(deltaSeconds) || deltaSeconds < 0 || deltaSeconds > MAX_DELTA_S) throw new RangeError('Session-Expires must be delta-seconds')
  }

  serialize(): string {
    let out = String(this.deltaSeconds)
    if (this.refresher) out += `;refresher=${this.refresher}`
    for (const [name, value] of this.params) out += value === null ? `;${name}` : `;${name}=${value}`
    return out
  }

  static parse(value: string): SessionExpires | undefined {
    const [delta, ...rest] = value.split(';')
    const deltaSeconds = parseDelta(delta!.trim())
    const params = parseParams(rest)
    if (deltaSeconds === undefined || !params) return undefined
    const refresher = params.get('refresher')
    if (refresher !== undefined) {
      const lower = refresher?.toLowerCase()
      if (lower !== 'uac' && lower !== 'uas') return undefined
      params.delete('refresher')
      return new SessionExpires(deltaSeconds, lower, params)
    }
    return new SessionExpires(deltaSeconds, undefined, params)
  }
}

/** Min-SE = delta-seconds *( SEMI generic-param ) (RFC 4028 §5): the seconds; undefined when malformed. */
export function parseMinSe(value: string): number | undefined {
  const [delta, ...rest] = value.split(';')
  const seconds = parseDelta(delta!.trim())
  return seconds !== undefined && parseParams(rest) ? seconds : undefined
}

/** A message's Session-Expires and Min-SE; `malformed` when either is unreadable or repeated. */
export function readSessionTimerHeaders(
  headers: SipHeaders,
): { ok: true; sessionExpires: SessionExpires | undefined; minSeS: number | undefined } | { ok: false; header: 'Session-Expires' | 'Min-SE' } {
  const se = headers.getAll('Session-Expires')
  const min = headers.getAll('Min-SE')
  const sessionExpires = se.length === 1 ? SessionExpires.parse(se[0]!) : undefined
  if (se.length > 1 || (se.length === 1 && !sessionExpires)) return { ok: false, header: 'Session-Expires' }
  const minSeS = min.length === 1 ? parseMinSe(min[0]!) : undefined
  if (min.length > 1 || (min.length === 1 && minSeS === undefined)) return { ok: false, header: 'Min-SE' }
  return { ok: true, sessionExpires, minSeS }
}

/** True when an option-tag list field (Supported, Require) names `tag`. */
export function hasOptionTag(headers: SipHeaders, name: 'Supported' | 'Require', tag: string): boolean {
  return headers
    .getAll(name)
    .flatMap((v) => v.split(','))
    .some((t) => t.trim().toLowerCase() === tag)
}

/** The interval agreed for a session and which side of the refreshing transaction refreshes. */
export interface SessionTimerChoice {
  readonly intervalS: number
  readonly refresher: Refresher
}

export interface SessionTimerPolicy {
  /** The shortest interval we accept (our Min-SE), at least 90 s. */
  readonly minSeS: number
  /** The interval we ask for or answer with when the peer asks for more; undefined: no timer unless asked. */
  readonly intervalS: number | undefined
  /** Who refreshes when the UAC supports timers and left it to us; we default to refreshing ourselves. */
  readonly preferRefresher: 'local' | 'remote'
}

export const DEFAULT_SESSION_TIMER: SessionTimerPolicy = {
  minSeS: MIN_SESSION_INTERVAL_S,
  /** RFC 4028 §4 recommends 1800 s. */
  intervalS: 1800,
  preferRefresher: 'local',
}

/** What a UAS answers a session refresh request (initial INVITE, re-INVITE, UPDATE) with (RFC 4028 §9). */
export type UasSessionTimerDecision =
  | { readonly kind: 'reject'; readonly status: 400; readonly reason: string }
  /** 422 Session Interval Too Small with these fields (Min-SE). */
  | { readonly kind: 'reject'; readonly status: 422; readonly headers: ReadonlyArray<readonly [string, string]> }
  /** Accept; add `headers` (Session-Expires, and Require: timer when the UAC refreshes) to the 2xx. */
  | { readonly kind: 'accept'; readonly timer: SessionTimerChoice | undefined; readonly headers: ReadonlyArray<readonly [string, string]> }

/**
 * RFC 4028 §9 for a UAS. A request whose Session-Expires is below our Min-SE is answered 422 with
 * our Min-SE — but only when the UAC says `Supported: timer`, since one that does not cannot act
 * on a 422; then we take its interval, raised to the 90 s floor at most. We may shorten the interval
 * (not below the request's Min-SE) and never lengthen it. The refresher follows RFC 4028 Table 2:
 * the UAS when the UAC does not support timers, else the request's choice, else our preference.
 * A refresher of uac puts Require: timer in the 2xx.
 */
export function negotiateAsUas(request: SipRequest, policy: SessionTimerPolicy = DEFAULT_SESSION_TIMER): UasSessionTimerDecision {
  const read = readSessionTimerHeaders(request.headers)
  if (!read.ok) return { kind: 'reject', status: 400, reason: `Malformed ${read.header} header field` }
  const localMinS = Math.max(policy.minSeS, MIN_SESSION_INTERVAL_S)
  const requestMinS = Math.max(read.minSeS ?? MIN_SESSION_INTERVAL_S, MIN_SESSION_INTERVAL_S)
  const supported = hasOptionTag(request.headers, 'Supported', 'timer')
  let intervalS: number
  if (read.sessionExpires) {
    const asked = read.sessionExpires.deltaSeconds
    if (asked < localMinS) {
      if (supported) return { kind: 'reject', status: 422, headers: [['Min-SE', String(localMinS)]] }
      intervalS = Math.max(asked, MIN_SESSION_INTERVAL_S)
    } else {
      const floorS = Math.max(requestMinS, localMinS)
      intervalS = policy.intervalS === undefined ? asked : Math.min(asked, Math.max(policy.intervalS, floorS))
    }
  } else {
    if (policy.intervalS === undefined) return { kind: 'accept', timer: undefined, headers: [] }
    intervalS = Math.max(policy.intervalS, requestMinS, localMinS)
  }
  const preferred: Refresher = policy.preferRefresher === 'local' ? 'uas' : 'uac'
  const refresher: Refresher = supported ? (read.sessionExpires?.refresher ?? preferred) : 'uas'
  const headers: Array<readonly [string, string]> = [['Session-Expires', new SessionExpires(intervalS, refresher).serialize()]]
  if (refresher === 'uac') headers.push(['Require', 'timer'])
  return { kind: 'accept', timer: { intervalS, refresher }, headers }
}

/**
 * RFC 4028 §7.1: the fields a UAC puts in a session refresh request: Supported: timer, and
 * Session-Expires with Min-SE when it wants a timer (the refresher left to the UAS).
 */
export function sessionTimerRequestHeaders(policy: SessionTimerPolicy = DEFAULT_SESSION_TIMER): Array<readonly [string, string]> {
  const headers: Array<readonly [string, string]> = [['Supported', 'timer']]
  if (policy.intervalS !== undefined) {
    const minSeS = Math.max(policy.minSeS, MIN_SESSION_INTERVAL_S)
    headers.push(['Session-Expires', String(Math.max(policy.intervalS, minSeS))], ['Min-SE', String(minSeS)])
  }
  return headers
}

/**
 * RFC 4028 §7.2: the timer a UAC runs after a 2xx to its session refresh request. No Session-Expires
 * in the 2xx: no session expiration. Without a refresher parameter we refresh ourselves (uac): an
 * extra refresh costs one re-INVITE, a missing one ends the call. A malformed field comes back as `ok: false`.
 */
export function negotiateAsUac(
  response: SipResponse,
): { ok: true; timer: SessionTimerChoice | undefined } | { ok: false; header: 'Session-Expires' | 'Min-SE' } {
  const read = readSessionTimerHeaders(response.headers)
  if (!read.ok) return read
  if (!read.sessionExpires) return { ok: true, timer: undefined }
  return { ok: true, timer: { intervalS: read.sessionExpires.deltaSeconds, refresher: read.sessionExpires.refresher ?? 'uac' } }
}

/**
 * RFC 4028 §7.3: after a 422, retry with Session-Expires at the 422's Min-SE (or ours, if larger)
 * and that Min-SE. Undefined when the 422 carries no readable Min-SE, or one not above what we sent
 * (the 422 asks for nothing more than we sent: retrying would loop).
 */
export function retryAfter422(response: SipResponse, sent: SessionTimerPolicy): SessionTimerPolicy | undefined {
  const read = readSessionTimerHeaders(response.headers)
  if (!read.ok || read.minSeS === undefined) return undefined
  if (read.minSeS <= (sent.intervalS ?? MIN_SESSION_INTERVAL_S)) return undefined
  const minSeS = Math.max(read.minSeS, sent.minSeS)
  return { ...sent, minSeS, intervalS: minSeS }
}
