import type { SipMessage, SipRequest, SipResponse } from '../message/index.js'
import { SipTransactionError } from './errors.js'
import type { Peer } from './peer.js'
import type { TimerDurations, TimerName } from './timers.js'

/** A transaction's matching key (matching.ts): stable for its life, unique among live transactions. */
export type TransactionId = string

export type TransactionKind = 'invite_client' | 'non_invite_client' | 'invite_server' | 'non_invite_server'

/**
 * What the layer asks of its surroundings, in order. `send` goes to the transport; the rest go to
 * the transaction user (the UA core: dialogs, the call).
 */
export type TransactionOutput =
  /** Without a transaction: a response sent statelessly (the 503 of an overloaded layer). */
  | { readonly type: 'send'; readonly transaction?: TransactionId; readonly message: SipMessage; readonly target: Peer }
  /** A new server transaction's request. A CANCEL names the INVITE server transaction it matches (§9.2). */
  | { readonly type: 'request'; readonly transaction: TransactionId; readonly request: SipRequest; readonly source: Peer; readonly cancels?: TransactionId }
  /** A response for a client transaction: provisional, final, and 2xx retransmissions (RFC 6026 §8.4). */
  | { readonly type: 'response'; readonly transaction: TransactionId; readonly response: SipResponse }
  /** An ACK for a 2xx (§13.3.1.4, §17.2.3; RFC 6026 §8.7): with the INVITE server transaction it matched, if any. */
  | { readonly type: 'ack'; readonly transaction?: TransactionId; readonly request: SipRequest; readonly source: Peer }
  /** A response matching no client transaction, passed to the core (§18.1.2): e.g. a 2xx retransmitted after Timer M. */
  | { readonly type: 'stray_response'; readonly response: SipResponse; readonly source: Peer }
  /**
   * No answer in time: B and F (the TU treats it as a 408, §8.1.3.1), H (no ACK came, §17.2.1) or
   * `cancel` (no final response 64*T1 after a CANCEL, §9.1).
   */
  | { readonly type: 'timeout'; readonly transaction: TransactionId; readonly timer: 'B' | 'F' | 'H' | 'cancel' }
  /** The transport failed to send (§17.1.4, §17.2.4). */
  | { readonly type: 'transport_error'; readonly transaction: TransactionId }
  | { readonly type: 'terminated'; readonly transaction: TransactionId }

/** Named as in the RFC; `trying` is the 200 ms of §17.2.1 and `cancel` the 64*T1 wait of §9.1. */
export type TransactionTimer = TimerName | 'trying' | 'cancel'

/**
 * The shape every transaction shares: a state held as a string union, changed only by an asserting
 * `transition(to)` along the edges of its RFC figure; timers kept as deadlines (no I/O, no clock),
 * fired by `tick(now)`. Every public method returns the outputs it caused.
 */
export abstract class Transaction<S extends string> {
  abstract readonly kind: TransactionKind
  #state: S
  readonly #timers = new Map<TransactionTimer, number>()
  #out: TransactionOutput[] = []

  constructor(
    readonly id: TransactionId,
    initial: S,
    private readonly edges: Readonly<Record<S, readonly S[]>>,
    protected readonly durations: TimerDurations,
  ) {
    this.#state = initial
  }

  get state(): S {
    return this.#state
  }

  get terminated(): boolean {
    return this.#state === 'terminated'
  }

  /** The earliest armed timer's deadline; undefined when none is armed. */
  get wakeAt(): number | undefined {
    let at: number | undefined
    for (const deadline of this.#timers.values()) if (at === undefined || deadline < at) at = deadline
    return at
  }

  /** Fires every timer due at `now`, earliest first (a late tick fires them in the order they fell due). */
  tick(now: number): TransactionOutput[] {
    return this.step(() => {
      for (;;) {
        let due: TransactionTimer | undefined
        let dueAt = Number.POSITIVE_INFINITY
        for (const [name, at] of this.#timers) if (at <= now && at < dueAt) [due, dueAt] = [name, at]
        if (due === undefined) return
        this.#timers.delete(due)
        this.fire(due, now)
      }
    })
  }

  /**
   * The transport could not send (§17.1.4, §17.2.4; for a response, after its RFC 3263 §5
   * fallbacks): the TU hears of it and the transaction ends.
   */
  transportError(): TransactionOutput[] {
    return this.step(() => {
      if (this.terminated) return
      this.emit({ type: 'transport_error', transaction: this.id })
      this.transition('terminated' as S)
    })
  }

  protected abstract fire(timer: TransactionTimer, now: number): void

  /** Runs `work`, returning what it emitted. */
  protected step(work: () => void): TransactionOutput[] {
    const out: TransactionOutput[] = []
    this.#out = out
    work()
    return out
  }

  protected emit(output: TransactionOutput): void {
    this.#out.push(output)
  }

  protected transition(to: S): void {
    const from = this.#state
    if (!this.edges[from].includes(to)) throw new SipTransactionError('invalid_state', `${this.kind} ${this.id}: no transition ${from} → ${to}`)
    this.#state = to
    if (to === 'terminated') {
      this.#timers.clear()
      this.emit({ type: 'terminated', transaction: this.id })
    }
  }

  /** Arms a timer `ms` from now. A zero duration (D, I, J, K over reliable transports) fires at once. */
  protected arm(timer: TransactionTimer, now: number, ms: number): void {
    if (ms <= 0) {
      this.#timers.delete(timer)
      this.fire(timer, now)
    } else this.#timers.set(timer, now + ms)
  }

  protected disarm(...timers: TransactionTimer[]): void {
    for (const timer of timers) this.#timers.delete(timer)
  }

  protected armed(timer: TransactionTimer): boolean {
    return this.#timers.has(timer)
  }
}
