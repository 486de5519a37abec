import { checkHost, DestinationRefusedError, type EventBus, type GuardOptions, type Logger } from '../../core/index.js'
import type { Repos, SipTrunkRow } from '../../db/index.js'
import type { Peer, SipRequest } from '../../sip/index.js'
import { type ClientHandlers, newCallId, newTag } from '../sip/user-agent.js'
import { nextHop, type RegistrationSettings, registrationSettings } from './register-request.js'
import { FAILURE_REASONS, type RegistrationAction, type RegistrationInput, type RegistrationState, TrunkRegistration } from './registration.js'
import type { RegistrationTiming } from './timing.js'

/** What registration needs of the SIP user agent (SipUserAgent has it; tests fake it). */
export interface RegistrationUserAgent {
  request(request: SipRequest, target: Peer, handlers: ClientHandlers): unknown
  contact(user: string, transport: string): string
  readonly publicHost: string
}

/** Wall-clock time (registered_until is written from it) and one-shot timers. */
export interface RegistrationClock {
  now(): number
  setTimer(cb: () => void, ms: number): unknown
  clearTimer(id: unknown): void
}

export const systemRegistrationClock: RegistrationClock = {
  now: () => Date.now(),
  // Unref'd: a refresh due in ten minutes must not keep a stopping process alive (close() ends them).
  setTimer: (cb, ms) => setTimeout(cb, Math.ceil(ms)).unref(),
  clearTimer: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
}

export interface RegistrationManagerOptions {
  ua: RegistrationUserAgent
  repos: { sipTrunks: Pick<Repos['sipTrunks'], 'all' | 'byId' | 'setRegistration'> }
  bus: EventBus
  /** The trunk's password in clear (TrunkPasswordSealer.open); null when none is set. May throw. */
  passwordOf: (row: SipTrunkRow) => string | null
  /** The outbound guard: every REGISTER's destination is checked when it is sent. */
  guard: GuardOptions
  logger: Logger
  clock?: RegistrationClock
  /** [0, 1): retry jitter. */
  random?: () => number
  timing?: Partial<RegistrationTiming>
}

export const DEFAULT_REGISTRATION_MANAGER = {
  /** close() waits this long for the unregisters' answers, in wall-clock time, then lets them go. */
  closeTimeoutMs: 2_000,
} as const

interface Entry {
  row: SipTrunkRow
  readonly key: string
  readonly core: TrunkRegistration
  timer: unknown
  /** Stopped by its owner or replaced: its unregister still runs, but it records and publishes nothing. */
  retired: boolean
  loggedState?: string
  readonly stopped: Promise<void>
  readonly markStopped: () => void
}

/** The columns whose change restarts a registration (a new name only renames its events). */
function settingsKey(r: SipTrunkRow): string {
  const password = r.password_sealed === null ? null : Buffer.from(r.password_sealed).toString('base64')
  return JSON.stringify([r.host, r.port, r.transport, r.outbound_proxy, r.domain, r.username, r.auth_username, r.key_id, password, r.register_expires_s])
}

const wantsRegistration = (r: SipTrunkRow): boolean => r.register === 1 && r.username !== null

/**
 * Registers every trunk set to register, each through its own TrunkRegistration: sends its
 * REGISTERs through the user agent to the trunk's next hop (its outbound proxy, else its host),
 * checked by the outbound guard each time; records each change on the trunk row; publishes
 * sip.trunk.registered / sip.trunk.down on the bus for the trunk's environment.
 */
export class RegistrationManager {
  readonly #o: RegistrationManagerOptions
  readonly #clock: RegistrationClock
  readonly #active = new Map<string, Entry>()
  readonly #retiring = new Set<Entry>()
  #closed = false

  constructor(o: RegistrationManagerOptions) {
    this.#o = o
    this.#clock = o.clock ?? systemRegistrationClock
  }

  /** Registers every trunk whose row says register. */
  start(): void {
    for (const row of this.#o.repos.sipTrunks.all()) if (wantsRegistration(row)) this.trunkChanged(row.id)
  }

  /** The trunk was created, changed or deleted: start, restart with its new settings, rename, or stop. */
  trunkChanged(trunkId: string): void {
    if (this.#closed) return
    const row = this.#o.repos.sipTrunks.byId(trunkId)
    const entry = this.#active.get(trunkId)
    if (!row || !wantsRegistration(row)) {
      if (entry) this.#retire(entry)
      return
    }
    const key = settingsKey(row)
    if (entry?.key === key) {
      entry.row = row
      return
    }
    // A restart keeps what the trunk's owner was last told: no second "registered", a "down" if the new settings fail.
    const up = entry?.core.up ?? false
    if (entry) this.#retire(entry)
    this.#begin(row, key, up)
  }

  /** The registration state of a trunk being registered, if it is. */
  stateOf(trunkId: string): RegistrationState | undefined {
    return this.#active.get(trunkId)?.core.state
  }

  /** Unregisters every trunk and waits for the answers, at most timeoutMs; then stops every timer. */
  async close(timeoutMs: number = DEFAULT_REGISTRATION_MANAGER.closeTimeoutMs): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const entry of [...this.#active.values()]) this.#retire(entry)
    let bound: ReturnType<typeof setTimeout> | undefined
    await Promise.race([Promise.all([...this.#retiring].map((e) => e.stopped)), new Promise<void>((resolve) => (bound = setTimeout(resolve, timeoutMs)))])
    clearTimeout(bound)
    for (const entry of this.#retiring) this.#clearTimer(entry)
    this.#retiring.clear()
  }

  #begin(row: SipTrunkRow, key: string, up: boolean): void {
    let password: string | null = null
    try {
      password = this.#o.passwordOf(row)
    } catch (err) {
      // The registration goes on and fails at the challenge, with the row saying so.
      this.#o.logger.error({ trunk_id: row.id, err: (err as Error).name }, 'sip trunk password could not be opened')
    }
    let settings: RegistrationSettings
    try {
      settings = registrationSettings(row, { contact: this.#o.ua.contact(row.username!, row.transport), password })
    } catch (err) {
      // The API validates every field this reads; a row written around it must not break the caller.
      this.#o.logger.error({ trunk_id: row.id, err: (err as Error).message }, 'sip trunk registration settings are invalid')
      const now = this.#clock.now()
      const failed = {
        registration_state: 'failed',
        registration_error: 'invalid registration settings',
        registration_changed_at: now,
        registered_until: null,
      } as const
      this.#o.repos.sipTrunks.setRegistration(row.id, failed)
      return
    }
    const core = new TrunkRegistration({
      settings,
      callId: newCallId(this.#o.ua.publicHost),
      fromTag: newTag(),
      up,
      ...(this.#o.random && { random: this.#o.random }),
      ...(this.#o.timing && { timing: this.#o.timing }),
    })
    let markStopped = () => {}
    const stopped = new Promise<void>((resolve) => (markStopped = resolve))
    const entry: Entry = { row, key, core, timer: undefined, retired: false, stopped, markStopped }
    this.#active.set(row.id, entry)
    this.#feed(entry, { type: 'start' })
  }

  #retire(entry: Entry): void {
    if (this.#active.get(entry.row.id) === entry) this.#active.delete(entry.row.id)
    this.#feed(entry, { type: 'stop' })
    entry.retired = true
    if (entry.core.state !== 'stopped') this.#retiring.add(entry)
  }

  #feed(entry: Entry, input: RegistrationInput): void {
    this.#apply(entry, entry.core.handle(input, this.#clock.now()))
  }

  #apply(entry: Entry, actions: RegistrationAction[]): void {
    for (const action of actions) {
      if (action.type === 'send') void this.#send(entry, action.cseq, action.request)
      else if (!entry.retired) {
        if (action.type === 'record') this.#record(entry, action)
        else this.#publish(entry, action)
      }
    }
    this.#clearTimer(entry)
    if (entry.core.state === 'stopped') {
      this.#retiring.delete(entry)
      entry.markStopped()
      return
    }
    const at = entry.core.nextDeadline()
    if (at !== undefined && !(this.#closed && entry.retired)) {
      entry.timer = this.#clock.setTimer(
        () => {
          entry.timer = undefined
          this.#apply(entry, entry.core.tick(this.#clock.now()))
        },
        Math.max(0, at - this.#clock.now()),
      )
    }
  }

  async #send(entry: Entry, cseq: number, request: SipRequest): Promise<void> {
    const hop = nextHop(entry.row)
    let host: string
    try {
      const addresses = await checkHost(hop.host, this.#o.guard)
      // Our listener is IPv4 unless the operator gave an IPv6 address: prefer an A answer.
      host = (addresses.find((a) => a.family === 4) ?? addresses[0]!).address
    } catch (err) {
      const refused = err instanceof DestinationRefusedError ? err : undefined
      if (!refused) this.#o.logger.warn({ trunk_id: entry.row.id, err: (err as Error).message }, 'sip trunk registrar could not be checked')
      const reason = refused?.reason === 'unresolvable' ? FAILURE_REASONS.unresolvable : refused ? FAILURE_REASONS.refused : FAILURE_REASONS.transport_error
      return this.#feed(entry, { type: 'failed', cseq, reason })
    }
    // Superseded while the name resolved (stopped, or restarted): a late REGISTER could outlive an unregister.
    if (entry.core.pendingCSeq !== cseq) return
    const peer: Peer = { transport: entry.row.transport.toUpperCase(), host, port: hop.port }
    try {
      this.#o.ua.request(request, peer, {
        response: (response) => this.#feed(entry, { type: 'response', cseq, response }),
        failed: (reason) => this.#feed(entry, { type: 'failed', cseq, reason: FAILURE_REASONS[reason] }),
      })
    } catch (err) {
      this.#o.logger.warn({ trunk_id: entry.row.id, err: (err as Error).message }, 'sip trunk REGISTER could not be sent')
      this.#feed(entry, { type: 'failed', cseq, reason: FAILURE_REASONS.transport_error })
    }
  }

  #record(entry: Entry, r: Extract<RegistrationAction, { type: 'record' }>): void {
    this.#o.repos.sipTrunks.setRegistration(entry.row.id, {
      registration_state: r.state,
      registration_error: r.error,
      registration_changed_at: r.changedAt,
      registered_until: r.registeredUntil,
    })
    const logged = `${r.state}:${r.error}`
    if (logged === entry.loggedState) return
    entry.loggedState = logged
    const fields = { trunk_id: entry.row.id, state: r.state, ...(r.error !== null && { reason: r.error }) }
    if (r.state === 'failed') this.#o.logger.warn(fields, 'sip trunk registration failed')
    else this.#o.logger.info(fields, 'sip trunk registration')
  }

  #publish(entry: Entry, p: Extract<RegistrationAction, { type: 'publish' }>): void {
    const { row } = entry
    this.#o.bus.publish({
      type: p.event,
      organizationId: row.organization_id,
      environmentId: row.environment_id,
      data: { trunk_id: row.id, name: row.name, registrar: row.host, ...(p.reason !== undefined && { reason: p.reason }) },
      occurredAt: this.#clock.now(),
    })
  }

  #clearTimer(entry: Entry): void {
    if (entry.timer !== undefined) this.#clock.clearTimer(entry.timer)
    entry.timer = undefined
  }
}
