import { type SessionTimerChoice, SessionTimer, type TimerClock } from '../../sip/index.js'

/**
 * RFC 4028 session timers on a call (the pure core is sip/dialog's SessionTimer): the refresher
 * sends a refresh at half the interval; either side ends the call with BYE when no refresh
 * succeeded by interval − min(32 s, interval/3). This adapter keeps one timer on the clock for the
 * core's next deadline and says what is due.
 */
export class SessionRefresh {
  readonly #core: SessionTimer
  #timer: unknown

  constructor(
    choice: SessionTimerChoice,
    /** Our role in the dialog: the refresher is named as uac or uas. */
    readonly role: 'uac' | 'uas',
    private readonly clock: TimerClock,
    private readonly on: { refresh(): void; expired(): void },
  ) {
    this.#core = new SessionTimer(clock, { intervalS: choice.intervalS, weRefresh: choice.refresher === role })
    this.#arm()
  }

  get intervalS(): number {
    return this.#core.terms.intervalS
  }

  /** The header value our refresh requests and answers carry. */
  get sessionExpires(): string {
    return `${this.#core.terms.intervalS};refresher=${this.#core.terms.weRefresh ? this.role : this.role === 'uac' ? 'uas' : 'uac'}`
  }

  /** A refresh succeeded (our re-INVITE's 2xx, or the peer's we answered 2xx): the interval restarts. */
  refreshed(choice?: SessionTimerChoice): void {
    if (this.#core.state === 'stopped' || this.#core.state === 'expired') return
    this.#core.refreshed(choice && { intervalS: choice.intervalS, weRefresh: choice.refresher === this.role })
    this.#arm()
  }

  stop(): void {
    this.clock.clearTimer(this.#timer)
    this.#core.stop()
  }

  #arm(): void {
    this.clock.clearTimer(this.#timer)
    const at = this.#core.nextDeadlineMs()
    if (at === undefined) return
    this.#timer = this.clock.setTimer(
      () => {
        const due = this.#core.poll()
        if (due === 'refresh') this.on.refresh()
        else if (due === 'bye') return this.on.expired()
        this.#arm()
      },
      Math.max(0, at - this.clock.now()),
    )
  }
}
