// A trunk, a registration core on a hand-moved clock, and a registrar that checks Digest with the
// server side of sip/auth (DigestVerifier), for the RFC 3261 §10.2 tests.
import { randomBytes } from 'node:crypto'
import { DigestVerifier, SipHeaders, type SipRequest, SipResponse } from '../../../sip/index.js'
import {
  type RegistrationAction,
  type RegistrationClock,
  type RegistrationRow,
  registrationSettings,
  type RegistrationTiming,
  TrunkRegistration,
} from '../../../telephony/registration/index.js'

export const ROW: RegistrationRow = {
  host: '203.0.113.10',
  port: 5060,
  transport: 'udp',
  outbound_proxy: null,
  domain: 'carrier.example',
  username: 'ozan-trunk',
  auth_username: null,
  register_expires_s: 600,
}
export const CONTACT = '<sip:ozan-trunk@198.51.100.7:5070>'
export const CALL_ID = 'reg-1@198.51.100.7'
export const PASSWORD = 'trunk password'

export interface CoreOptions {
  row?: Partial<RegistrationRow>
  password?: string | null
  timing?: Partial<RegistrationTiming>
  random?: () => number
  up?: boolean
}

export function newCore(o: CoreOptions = {}): TrunkRegistration {
  const settings = registrationSettings({ ...ROW, ...o.row }, { contact: CONTACT, password: o.password === undefined ? PASSWORD : o.password })
  return new TrunkRegistration({
    settings,
    callId: CALL_ID,
    fromTag: 'from1',
    random: o.random ?? (() => 0),
    ...(o.timing && { timing: o.timing }),
    ...(o.up !== undefined && { up: o.up }),
  })
}

type Send = Extract<RegistrationAction, { type: 'send' }>
type Publish = Extract<RegistrationAction, { type: 'publish' }>
type Record = Extract<RegistrationAction, { type: 'record' }>

export const sends = (actions: RegistrationAction[]): Send[] => actions.filter((a): a is Send => a.type === 'send')
export const publishes = (actions: RegistrationAction[]): Publish[] => actions.filter((a): a is Publish => a.type === 'publish')
export const records = (actions: RegistrationAction[]): Record[] => actions.filter((a): a is Record => a.type === 'record')

/** The one REGISTER among the actions (fails the test by throwing when there is not exactly one). */
export function sent(actions: RegistrationAction[]): Send {
  const s = sends(actions)
  if (s.length !== 1) throw new Error(`expected one REGISTER, got ${s.length}`)
  return s[0]!
}

/** A response to `request`: its Call-ID, CSeq, From and To (with a tag), and `fields`. */
export function reply(request: SipRequest, status: number, reason: string, fields: [string, string][] = []): SipResponse {
  const h = request.headers
  return new SipResponse(
    status,
    reason,
    new SipHeaders([['From', h.get('From')!], ['To', `${h.get('To')!};tag=reg`], ['Call-ID', h.get('Call-ID')!], ['CSeq', h.get('CSeq')!], ...fields]),
  )
}

/** A registrar for one user: challenges, verifies, and grants `grantS` (or what was asked, if shorter). */
export class Registrar {
  readonly verifier: DigestVerifier
  grantS = 3600
  /** How each request fared: 'challenged' or 'accepted'. */
  readonly log: string[] = []

  constructor(clock: { now(): number }, o: { username?: string; password?: string; nonceTtlMs?: number; realm?: string } = {}) {
    this.verifier = new DigestVerifier({
      realm: o.realm ?? 'carrier.example',
      secret: randomBytes(32),
      lookup: (u) => (u === (o.username ?? ROW.username) ? { password: o.password ?? PASSWORD } : undefined),
      clock,
      algorithms: ['MD5'],
      ...(o.nonceTtlMs && { nonceTtlMs: o.nonceTtlMs }),
    })
  }

  answer(request: SipRequest): SipResponse {
    const verified = this.verifier.verify(request)
    if (!verified.ok) {
      this.log.push(`challenged:${verified.reason}`)
      return reply(
        request,
        401,
        'Unauthorized',
        verified.challenge.map((c) => ['WWW-Authenticate', c.serialize()]),
      )
    }
    this.log.push('accepted')
    const expires = Math.min(request.headers.expires() ?? 3600, this.grantS)
    return reply(request, 200, 'OK', [['Contact', `${request.headers.get('Contact')!};expires=${expires}`]])
  }
}

/** Timers that fire only when the test moves the clock. */
export class ManualTimers implements RegistrationClock {
  #now = Date.now()
  #next = 0
  readonly #timers = new Map<number, { at: number; cb: () => void }>()
  now(): number {
    return this.#now
  }
  setTimer(cb: () => void, ms: number): unknown {
    this.#timers.set(++this.#next, { at: this.#now + ms, cb })
    return this.#next
  }
  clearTimer(id: unknown): void {
    this.#timers.delete(id as number)
  }
  get pending(): number {
    return this.#timers.size
  }
  /** Moves to the earliest timer and fires it; returns how far the clock moved. */
  fireNext(): number {
    const [id, timer] = [...this.#timers].sort((a, b) => a[1].at - b[1].at)[0] ?? []
    if (id === undefined || !timer) throw new Error('no timer is set')
    const moved = Math.max(0, timer.at - this.#now)
    this.#now += moved
    this.#timers.delete(id)
    timer.cb()
    return moved
  }
}

/** Polls `check` every 20 ms until it holds; throws naming `what` after timeoutMs. */
export async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
