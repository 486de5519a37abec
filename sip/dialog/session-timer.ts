import type { Clock } from '../../core/index.js'
import { DialogStateError } from './errors.js'

/** What the session timer asks of the UA: send a session refresh (re-INVITE or UPDATE), or end with BYE. */
export type SessionTimerAction = 'refresh' | 'bye'

/**
 * running: waiting for the refresh point (ours) or a refresh (theirs); refreshing: we were told to
 * refresh and wait for it to succeed; expired: BYE was asked for; stopped: the dialog ended.
 */
export type SessionTimerState = 'running' | 'refreshing' | 'expired' | 'stopped'

const TRANSITIONS: Readonly<Record<SessionTimerState, readonly SessionTimerState[]>> = {
  running: ['running', 'refreshing', 'expired', 'stopped'],
  refreshing: ['running', 'expired', 'stopped'],
  expired: ['stopped'],
  stopped: [],
}

/** A negotiated session interval, and whether this UA is the refresher. */
export interface SessionTimerTerms {
  readonly intervalS: number
  readonly weRefresh: boolean
}

/**
 * The session timer of RFC 4028 §10 as a pure core: it holds deadlines, an adapter sets one timer
 * for `nextDeadlineMs()` and calls `poll()` when it fires. The refresher refreshes at half the
 * interval; either side ends the session with BYE at interval - min(32 s, interval / 3) without a
 * successful refresh (the refresher too, when its refresh got no 2xx).
 */
export class SessionTimer {
  readonly #clock: Clock
  #state: SessionTimerState = 'running'
  #terms!: SessionTimerTerms
  #startedAtMs = 0

  constructor(clock: Clock, terms: SessionTimerTerms) {
    this.#clock = clock
    this.#start(terms)
  }

  get state(): SessionTimerState {
    return this.#state
  }

  get terms(): SessionTimerTerms {
    return this.#terms
  }

  /** When we send the refresh (half the interval); undefined when the peer refreshes. */
  get refreshAtMs(): number | undefined {
    return this.#terms.weRefresh ? this.#startedAtMs + (this.#terms.intervalS * 1000) / 2 : undefined
  }

  /** When to send BYE without a refresh: interval - min(32, interval / 3) seconds (§10). */
  get byeAtMs(): number {
    const { intervalS } = this.#terms
    return this.#startedAtMs + (intervalS - Math.min(32, intervalS / 3)) * 1000
  }

  /** The next instant `poll()` has something to say; undefined once expired or stopped. */
  nextDeadlineMs(): number | undefined {
    if (this.#state === 'expired' || this.#state === 'stopped') return undefined
    const refreshAt = this.refreshAtMs
    return this.#state === 'running' && refreshAt !== undefined ? refreshAt : this.byeAtMs
  }

  /** The action due now, each at most once per interval; BYE wins when both are past. */
  poll(): SessionTimerAction | undefined {
    if (this.#state === 'expired' || this.#state === 'stopped') return undefined
    const now = this.#clock.now()
    if (now >= this.byeAtMs) {
      this.transition('expired')
      return 'bye'
    }
    const refreshAt = this.refreshAtMs
    if (this.#state === 'running' && refreshAt !== undefined && now >= refreshAt) {
      this.transition('refreshing')
      return 'refresh'
    }
    return undefined
  }

  /** A session refresh succeeded (a 2xx sent or received, §10): the interval restarts, with terms renegotiated. */
  refreshed(terms: SessionTimerTerms = this.#terms): void {
    this.transition('running')
    this.#start(terms)
  }

  /** The dialog ended. */
  stop(): void {
    if (this.#state !== 'stopped') this.transition('stopped')
  }

  transition(to: SessionTimerState): void {
    if (!TRANSITIONS[this.#state].includes(to)) throw new DialogStateError(this.#state, to)
    this.#state = to
  }

  #start(terms: SessionTimerTerms): void {
    if (!(Number.isInteger(terms.intervalS) && terms.intervalS > 0)) throw new RangeError('intervalS must be a positive integer')
    this.#terms = terms
    this.#startedAtMs = this.#clock.now()
  }
}
