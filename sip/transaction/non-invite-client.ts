import type { SipRequest, SipResponse } from '../message/index.js'
import type { Peer } from './peer.js'
import type { TimerDurations } from './timers.js'
import { Transaction, type TransactionId, type TransactionTimer } from './transaction.js'

/** §17.1.2.2 (Figure 6). */
export type NonInviteClientState = 'trying' | 'proceeding' | 'completed' | 'terminated'

const EDGES: Record<NonInviteClientState, readonly NonInviteClientState[]> = {
  trying: ['proceeding', 'completed', 'terminated'],
  proceeding: ['completed', 'terminated'],
  completed: ['terminated'],
  terminated: [],
}

/** The client side of any request but INVITE and ACK: retransmits (Timer E), gives up (F), absorbs response retransmissions (K). */
export class NonInviteClientTransaction extends Transaction<NonInviteClientState> {
  readonly kind = 'non_invite_client'
  #intervalE = 0

  constructor(
    id: TransactionId,
    readonly request: SipRequest,
    readonly target: Peer,
    durations: TimerDurations,
  ) {
    super(id, 'trying', EDGES, durations)
  }

  /** Sends the request and starts Timer E (unreliable transports) and Timer F (§17.1.2.2). */
  start(now: number) {
    return this.step(() => {
      this.#send()
      const first = this.durations.firstRetransmit
      if (first !== undefined) {
        this.#intervalE = first
        this.arm('E', now, first)
      }
      this.arm('F', now, this.durations.transactionTimeout)
    })
  }

  receive(response: SipResponse, now: number) {
    return this.step(() => {
      if (this.state !== 'trying' && this.state !== 'proceeding') return // Completed absorbs retransmissions
      if (response.status < 200) {
        if (this.state === 'trying') this.transition('proceeding')
        this.emit({ type: 'response', transaction: this.id, response })
      } else {
        this.disarm('E', 'F')
        this.transition('completed')
        this.emit({ type: 'response', transaction: this.id, response })
        this.arm('K', now, this.durations.t4OrZero)
      }
    })
  }

  protected fire(timer: TransactionTimer, now: number): void {
    switch (timer) {
      case 'E':
        // Trying: T1, 2T1, 4T1 … capped at T2; Proceeding: every T2 (§17.1.2.2).
        this.#send()
        this.#intervalE = this.state === 'trying' ? this.durations.backoff(this.#intervalE) : this.durations.values.t2Ms
        this.arm('E', now, this.#intervalE)
        return
      case 'F':
        this.emit({ type: 'timeout', transaction: this.id, timer: 'F' })
        this.transition('terminated')
        return
      case 'K':
        this.transition('terminated')
        return
    }
  }

  #send(): void {
    this.emit({ type: 'send', transaction: this.id, message: this.request, target: this.target })
  }
}
