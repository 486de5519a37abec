/**
 * The timers of RFC 3261 §17 (Table 4, Appendix A) and RFC 6026 §8 (L and M), as durations computed
 * from T1, T2 and T4. Timer C is a proxy's and has no place in a user agent.
 */

/** Base intervals in ms (§17.1.1.1, §17.1.2.2, Appendix A). */
export interface TimerValues {
  /** RTT estimate: the first retransmission interval. 500 ms by default; §17.1.1.1 allows larger, and smaller only on private networks. */
  readonly t1Ms: number
  /** Longest retransmission interval of non-INVITE requests and INVITE responses. */
  readonly t2Ms: number
  /** Longest time a message stays in the network. */
  readonly t4Ms: number
}

export const DEFAULT_TIMER_VALUES: TimerValues = Object.freeze({ t1Ms: 500, t2Ms: 4_000, t4Ms: 5_000 })

export function resolveTimerValues(partial: Partial<TimerValues> = {}): TimerValues {
  const values = { ...DEFAULT_TIMER_VALUES, ...partial }
  for (const [name, value] of Object.entries(values)) {
    if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`SIP timer ${name} must be a positive number of ms, got ${value}`)
  }
  if (values.t2Ms < values.t1Ms) throw new RangeError('SIP timer t2Ms must not be below t1Ms')
  return Object.freeze(values)
}

export type TimerName = 'A' | 'B' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M'

/**
 * Transports that deliver or report failure themselves (§18): retransmission timers A, E and G run
 * only over the others, and D, I, J and K, which absorb retransmissions, are zero over these.
 */
const RELIABLE = new Set(['TCP', 'TLS', 'SCTP', 'TLS-SCTP', 'WS', 'WSS'])

export function isReliable(transport: string): boolean {
  return RELIABLE.has(transport.toUpperCase())
}

/** Timer D (§17.1.1.2): "at least 32 seconds" over unreliable transports, whatever T1 is. */
export const TIMER_D_UNRELIABLE_MS = 32_000

/** Timer durations of one transaction, given whether its transport is reliable. */
export class TimerDurations {
  constructor(
    readonly values: TimerValues,
    readonly reliable: boolean,
  ) {}

  /** 64*T1: B (INVITE client timeout), F (non-INVITE client timeout), H (wait for ACK), L and M (RFC 6026). */
  get transactionTimeout(): number {
    return 64 * this.values.t1Ms
  }

  /** A, E and G start at T1 and only run over unreliable transports. */
  get firstRetransmit(): number | undefined {
    return this.reliable ? undefined : this.values.t1Ms
  }

  /** E (in Trying) and G double up to T2 (§17.1.2.2, §17.2.1); A doubles without bound (§17.1.1.2). */
  backoff(previous: number): number {
    return Math.min(2 * previous, this.values.t2Ms)
  }

  get timerD(): number {
    return this.reliable ? 0 : TIMER_D_UNRELIABLE_MS
  }

  /** I and K: T4 over unreliable transports, zero over reliable ones. */
  get t4OrZero(): number {
    return this.reliable ? 0 : this.values.t4Ms
  }

  /** J: 64*T1 over unreliable transports, zero over reliable ones. */
  get timerJ(): number {
    return this.reliable ? 0 : this.transactionTimeout
  }
}
