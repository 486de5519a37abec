import type { SipRequest, SipResponse } from '../message/index.js'
import type { Peer } from './peer.js'
import { ackFor } from './requests.js'
import type { TimerDurations } from './timers.js'
import { Transaction, type TransactionId, type TransactionTimer } from './transaction.js'

/** §17.1.1.2 (Figure 5) with RFC 6026's Accepted state, where 2xx retransmissions reach the TU. */
export type InviteClientState = 'calling' | 'proceeding' | 'completed' | 'accepted' | 'terminated'

const EDGES: Record<InviteClientState, readonly InviteClientState[]> = {
  calling: ['proceeding', 'completed', 'accepted', 'terminated'],
  proceeding: ['completed', 'accepted', 'terminated'],
  completed: ['terminated'],
  accepted: ['terminated'],
  terminated: [],
}

/** The client side of an INVITE: retransmits it (Timer A), gives up (B), ACKs failures, absorbs their retransmissions (D). */
export class InviteClientTransaction extends Transaction<InviteClientState> {
  readonly kind = 'invite_client'
  #intervalA = 0
  #ack: SipRequest | undefined

  constructor(
    id: TransactionId,
    readonly request: SipRequest,
    readonly target: Peer,
    durations: TimerDurations,
  ) {
    super(id, 'calling', EDGES, durations)
  }

  /** Sends the INVITE and starts Timer A (unreliable transports) and Timer B (§17.1.1.2). */
  start(now: number) {
    return this.step(() => {
      this.#send(this.request)
      const first = this.durations.firstRetransmit
      if (first !== undefined) {
        this.#intervalA = first
        this.arm('A', now, first)
      }
      this.arm('B', now, this.durations.transactionTimeout)
    })
  }

  receive(response: SipResponse, now: number) {
    return this.step(() => {
      const status = response.status
      switch (this.state) {
        case 'calling':
        case 'proceeding':
          // Any response stops retransmissions and Timer B, which only fires in Calling (§17.1.1.2).
          this.disarm('A', 'B')
          if (status < 200) {
            if (this.state === 'calling') this.transition('proceeding')
            this.#toTu(response)
          } else if (status < 300) {
            this.disarm('cancel')
            this.transition('accepted')
            this.#toTu(response)
            this.arm('M', now, this.durations.transactionTimeout)
          } else {
            this.disarm('cancel')
            this.transition('completed')
            this.#ack = ackFor(this.request, response)
            this.#send(this.#ack)
            this.#toTu(response)
            this.arm('D', now, this.durations.timerD) // zero over reliable transports: Terminated at once
          }
          return
        case 'completed':
          // A retransmitted final response: ACK it again, do not bother the TU (§17.1.1.2).
          if (status >= 300) this.#send(this.#ack!)
          return
        case 'accepted':
          // RFC 6026 §8.4: 2xx retransmissions (and other forks' 2xx) go up; the TU ACKs them.
          if (status >= 200 && status < 300) this.#toTu(response)
          return
        case 'terminated':
          return
      }
    })
  }

  /**
   * The TU sent a CANCEL for this INVITE (§9.1): if no final response comes within 64*T1, the
   * transaction is taken for cancelled and destroyed, reported as a `cancel` timeout.
   */
  cancelled(now: number) {
    return this.step(() => {
      if (this.state === 'calling' || this.state === 'proceeding') this.arm('cancel', now, this.durations.transactionTimeout)
    })
  }

  protected fire(timer: TransactionTimer, now: number): void {
    switch (timer) {
      case 'A':
        // Doubles without the T2 cap of E and G: 7 sends over 32 s at T1 = 500 ms (§17.1.1.2).
        this.#send(this.request)
        this.#intervalA *= 2
        this.arm('A', now, this.#intervalA)
        return
      case 'B':
      case 'cancel':
        this.emit({ type: 'timeout', transaction: this.id, timer })
        this.transition('terminated')
        return
      case 'D':
      case 'M':
        this.transition('terminated')
        return
    }
  }

  #toTu(response: SipResponse): void {
    this.emit({ type: 'response', transaction: this.id, response })
  }

  #send(message: SipRequest): void {
    // §17.1.1.3: the ACK goes where the INVITE went.
    this.emit({ type: 'send', transaction: this.id, message, target: this.target })
  }
}
