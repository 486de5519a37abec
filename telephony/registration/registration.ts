import type { TrunkRegistrationState } from '../../db/index.js'
import { AuthHeader, authorizeRequest, DigestClient, type SipHeaders, SipRequest, type SipResponse, type SipUri } from '../../sip/index.js'
import { grantedExpiresS, type RegistrationSettings, registerRequest, retryAfterS } from './register-request.js'
import { DEFAULT_REGISTRATION_TIMING, type RegistrationTiming, refreshAt, retryDelayMs } from './timing.js'

/**
 * - idle: built, not started.
 * - registering: a REGISTER is out and no binding is known to be in place.
 * - registered: the registrar holds our binding; a refresh is due at `refreshAt`.
 * - refreshing: a refresh is out while the binding still holds (until `registeredUntil`).
 * - retry_wait: the last attempt failed; the next one is due at `retryAt`.
 * - unregistering: stopped; the REGISTER with Expires: 0 is out (§10.2.2).
 * - stopped: done; nothing more is sent.
 */
export type RegistrationState = 'idle' | 'registering' | 'registered' | 'refreshing' | 'retry_wait' | 'unregistering' | 'stopped'

const TRANSITIONS: Record<RegistrationState, readonly RegistrationState[]> = {
  idle: ['registering', 'stopped'],
  registering: ['registered', 'retry_wait', 'unregistering'],
  registered: ['refreshing', 'unregistering'],
  refreshing: ['registered', 'registering', 'retry_wait', 'unregistering'],
  retry_wait: ['registering', 'stopped'],
  unregistering: ['stopped'],
  stopped: [],
}

export type RegistrationEventType = 'sip.trunk.registered' | 'sip.trunk.down'

export type RegistrationInput =
  | { type: 'start' }
  /** A response to the REGISTER whose CSeq is `cseq` (responses to any other are stale and ignored). */
  | { type: 'response'; cseq: number; response: SipResponse }
  /** The REGISTER whose CSeq is `cseq` got no final response: a timeout, a transport error, a refused destination. */
  | { type: 'failed'; cseq: number; reason: string }
  /** The trunk was deleted or set not to register, or the process is stopping: unregister, quietly. */
  | { type: 'stop' }

export type RegistrationAction =
  /** Send this REGISTER (built without Via) to the trunk's next hop. */
  | { type: 'send'; cseq: number; request: SipRequest }
  | { type: 'publish'; event: RegistrationEventType; reason?: string }
  /** Write the trunk row's registration columns (TrunkRegistrationState is the API's view). */
  | { type: 'record'; state: TrunkRegistrationState; error: string | null; changedAt: number; registeredUntil: number | null }

/** The reasons given for failures that are not a response. */
export const FAILURE_REASONS = {
  timeout: 'registration timed out',
  transport_error: 'could not reach the registrar (transport error)',
  refused: 'destination refused by the outbound guard',
  unresolvable: "the registrar's host name does not resolve",
  expired: 'registration expired',
} as const

export interface TrunkRegistrationOptions {
  readonly settings: RegistrationSettings
  /** One Call-ID for every REGISTER of this registration (§10.2.4, §10.2: "for all registrations during a single boot cycle"). */
  readonly callId: string
  readonly fromTag: string
  /** [0, 1): the jitter of retry waits. */
  readonly random?: () => number
  /** Random bytes for Digest cnonces (crypto by default). */
  readonly digestRandom?: (size: number) => Buffer
  readonly timing?: Partial<RegistrationTiming>
  /**
   * The last event published for the trunk was sip.trunk.registered (a registration restarted with
   * new settings): success publishes nothing more, failure publishes sip.trunk.down.
   */
  readonly up?: boolean
}

interface Pending {
  readonly cseq: number
  readonly request: SipRequest
  readonly expiresS: number
  readonly challenges: number
  readonly intervals: number
}

/**
 * One trunk's registration with its registrar (RFC 3261 §10.2) as a pure state machine: fed
 * inputs and ticks with the time, it returns what to send, publish and record. It answers one
 * Digest challenge per attempt (§22.2), retries 423 with the Min-Expires asked for (§10.2.8),
 * refreshes before the granted lifetime runs out (§10.2.4) and backs off after failures
 * (RFC 5626 §4.5). sip.trunk.registered and sip.trunk.down are published on the edges between
 * "up" and "down" only, so retries while down publish nothing; a stop publishes nothing.
 */
export class TrunkRegistration {
  readonly #o: TrunkRegistrationOptions
  readonly #timing: RegistrationTiming
  readonly #random: () => number
  readonly #digest: DigestClient
  readonly #contact: SipUri
  #state: RegistrationState = 'idle'
  #cseq = 0
  #expiresS: number
  #pending: Pending | undefined
  /** Realms whose nonce the digest client holds: later requests carry credentials pre-emptively (§22.3). */
  #realms: string[] = []
  #up: boolean
  #failures = 0
  #refreshAt: number | undefined
  #registeredUntil: number | undefined
  #retryAt: number | undefined
  #recorded: Omit<Extract<RegistrationAction, { type: 'record' }>, 'type'> | undefined

  constructor(o: TrunkRegistrationOptions) {
    this.#o = o
    this.#timing = { ...DEFAULT_REGISTRATION_TIMING, ...o.timing }
    this.#random = o.random ?? Math.random
    const { authUsername, password } = o.settings
    this.#digest = new DigestClient({
      accounts: password === null ? [] : [{ username: authUsername, password }],
      ...(o.digestRandom && { random: o.digestRandom }),
    })
    this.#contact = o.settings.contact.uri as SipUri
    this.#expiresS = o.settings.expiresS
    this.#up = o.up ?? false
  }

  get state(): RegistrationState {
    return this.#state
  }
  /** Whether sip.trunk.registered is the last event published (carried into a restarted registration). */
  get up(): boolean {
    return this.#up
  }
  /** The CSeq of the REGISTER awaiting its final response, if any. */
  get pendingCSeq(): number | undefined {
    return this.#pending?.cseq
  }
  get registeredUntil(): number | undefined {
    return this.#registeredUntil
  }

  /** When tick() has something to do next, if anything. */
  nextDeadline(): number | undefined {
    if (this.#state === 'registered') return this.#refreshAt
    if (this.#state === 'refreshing') return this.#registeredUntil
    if (this.#state === 'retry_wait') return this.#retryAt
    return undefined
  }

  handle(input: RegistrationInput, nowMs: number): RegistrationAction[] {
    switch (input.type) {
      case 'start':
        this.#transition('registering')
        return [this.#record(nowMs, 'registering', null, null), this.#send(this.#expiresS)]
      case 'stop':
        return this.#stop(nowMs)
      case 'response':
        if (input.cseq !== this.#pending?.cseq || input.response.status < 200) return []
        return this.#response(input.response, nowMs)
      case 'failed':
        if (input.cseq !== this.#pending?.cseq) return []
        return this.#state === 'unregistering' ? this.#stopped() : this.#fail(input.reason, nowMs)
    }
  }

  tick(nowMs: number): RegistrationAction[] {
    const deadline = this.nextDeadline()
    if (deadline === undefined || nowMs < deadline) return []
    if (this.#state === 'registered') {
      this.#transition('refreshing')
      return [this.#send(this.#expiresS), ...this.tick(nowMs)]
    }
    if (this.#state === 'retry_wait') {
      this.#transition('registering')
      return [this.#send(this.#expiresS)]
    }
    // refreshing past registeredUntil: the binding is gone though the refresh may still succeed.
    this.#transition('registering')
    this.#registeredUntil = undefined
    return this.#down(nowMs, FAILURE_REASONS.expired)
  }

  #transition(to: RegistrationState): void {
    if (!TRANSITIONS[this.#state].includes(to)) throw new Error(`registration cannot go from ${this.#state} to ${to}`)
    this.#state = to
  }

  #response(response: SipResponse, nowMs: number): RegistrationAction[] {
    const status = `${response.status} ${response.reason}`
    if (response.status === 401 || response.status === 407) {
      const answered = this.#answer(response)
      if (typeof answered !== 'string') return [answered]
      return this.#state === 'unregistering' ? this.#stopped() : this.#fail(`${status}: ${answered}`, nowMs)
    }
    if (this.#state === 'unregistering') return this.#stopped()
    if (response.status >= 300) {
      if (response.status === 423) {
        const retried = this.#longerInterval(response)
        if (retried) return [retried]
      }
      return this.#fail(status, nowMs, retryAfterS(response))
    }
    const grantedS = grantedExpiresS(response, this.#contact, this.#pending!.expiresS)
    if (grantedS <= 0) return this.#fail(`${status}: the registrar kept no binding`, nowMs)
    this.#pending = undefined
    this.#failures = 0
    this.#registeredUntil = nowMs + grantedS * 1000
    this.#refreshAt = refreshAt(nowMs, grantedS, this.#timing)
    this.#transition('registered')
    const actions: RegistrationAction[] = [this.#record(nowMs, 'registered', null, this.#registeredUntil)]
    if (!this.#up) actions.push({ type: 'publish', event: 'sip.trunk.registered' })
    this.#up = true
    return actions
  }

  /** §22.2: the challenged REGISTER again with credentials; a string says why it cannot be. */
  #answer(response: SipResponse): RegistrationAction | string {
    const pending = this.#pending!
    if (this.#o.settings.password === null) return 'no password is set for the trunk'
    if (pending.challenges >= this.#timing.maxChallengesPerAttempt) return 'credentials refused'
    // Pre-emptive credentials were never answers to this challenge: answer it afresh.
    const request =
      pending.challenges === 0
        ? new SipRequest(pending.request.method, pending.request.uri, pending.request.headers.without('Authorization').without('Proxy-Authorization'))
        : pending.request
    const cseq = ++this.#cseq
    const authorized = authorizeRequest(request, response, this.#digest, { cseq })
    if (!authorized.ok) return authorized.error.code === 'credentials_rejected' ? 'credentials refused' : authorized.error.message
    const fields = [...authorized.value.headers.getAll('Authorization'), ...authorized.value.headers.getAll('Proxy-Authorization')]
    this.#realms = fields.map((v) => AuthHeader.parse(v)?.param('realm')).filter((r): r is string => r !== undefined)
    this.#pending = { ...pending, cseq, request: authorized.value, challenges: pending.challenges + 1 }
    return { type: 'send', cseq, request: authorized.value }
  }

  /** §10.2.8: a 423 names the shortest lifetime the registrar takes; ask for it if it is longer. */
  #longerInterval(response: SipResponse): RegistrationAction | undefined {
    const pending = this.#pending!
    const minS = response.headers.minExpires()
    if (minS === undefined || minS <= pending.expiresS || minS > this.#timing.maxExpiresS) return undefined
    if (pending.intervals >= this.#timing.maxIntervalRetriesPerAttempt) return undefined
    // Kept for the refreshes too: the registrar would refuse the shorter lifetime again.
    this.#expiresS = minS
    return this.#send(minS, { challenges: 0, intervals: pending.intervals + 1 })
  }

  #fail(reason: string, nowMs: number, retryAfter?: number): RegistrationAction[] {
    this.#pending = undefined
    this.#failures++
    this.#retryAt = nowMs + retryDelayMs(this.#failures, this.#random(), this.#timing, retryAfter)
    this.#registeredUntil = undefined
    this.#refreshAt = undefined
    this.#transition('retry_wait')
    return this.#down(nowMs, reason)
  }

  /** The trunk is not registered for `reason`: recorded, and published once if it was up. */
  #down(nowMs: number, reason: string): RegistrationAction[] {
    const actions: RegistrationAction[] = [this.#record(nowMs, 'failed', reason, null)]
    if (this.#up) actions.push({ type: 'publish', event: 'sip.trunk.down', reason })
    this.#up = false
    return actions
  }

  #stop(nowMs: number): RegistrationAction[] {
    if (this.#state === 'unregistering' || this.#state === 'stopped') return []
    const record = this.#record(nowMs, 'unregistered', null, null)
    this.#registeredUntil = undefined
    if (this.#state === 'idle' || this.#state === 'retry_wait') {
      this.#transition('stopped')
      return [record]
    }
    // Registering too: the REGISTER in flight may yet create a binding.
    this.#transition('unregistering')
    return [record, this.#send(0)]
  }

  #stopped(): RegistrationAction[] {
    this.#pending = undefined
    this.#transition('stopped')
    return []
  }

  #send(expiresS: number, counts: Pick<Pending, 'challenges' | 'intervals'> = { challenges: 0, intervals: 0 }): RegistrationAction {
    const cseq = ++this.#cseq
    let request = registerRequest(this.#o.settings, { callId: this.#o.callId, fromTag: this.#o.fromTag, cseq, expiresS })
    const uri = request.uri.serialize()
    let headers: SipHeaders = request.headers
    for (const realm of this.#realms) {
      const field = this.#digest.preemptive(realm, { method: 'REGISTER', uri })
      if (field) headers = headers.with(field.name, field.header.serialize())
    }
    request = new SipRequest('REGISTER', request.uri, headers)
    this.#pending = { cseq, request, expiresS, ...counts }
    return { type: 'send', cseq, request }
  }

  #record(nowMs: number, state: TrunkRegistrationState, error: string | null, registeredUntil: number | null): RegistrationAction {
    const last = this.#recorded
    const changedAt = last && last.state === state && last.error === error ? last.changedAt : nowMs
    this.#recorded = { state, error, changedAt, registeredUntil }
    return { type: 'record', ...this.#recorded }
  }
}
