import type { SipRequest, SipResponse } from '../message/index.js'
import { SipTransactionError } from './errors.js'
import type { Peer } from './peer.js'
import { responseTo } from './requests.js'
import type { TimerDurations } from './timers.js'
import { Transaction, type TransactionId, type TransactionTimer } from './transaction.js'

/** §17.2.1 (Figure 7) with RFC 6026's Accepted state, where the TU retransmits its 2xx and ACKs reach it. */
export type InviteServerState = 'proceeding' | 'completed' | 'confirmed' | 'accepted' | 'terminated'

const EDGES: Record<InviteServerState, readonly InviteServerState[]> = {
  proceeding: ['completed', 'accepted', 'terminated'],
  completed: ['confirmed', 'terminated'],
  confirmed: ['terminated'],
  accepted: ['terminated'],
  terminated: [],
}

/** The server side of an INVITE: 100 Trying, answers retransmissions, retransmits failures until the ACK (G, H, I). */
export class InviteServerTransaction extends Transaction<InviteServerState> {
  readonly kind = 'invite_server'
  #provisional: SipResponse | undefined
  #final: SipResponse | undefined
  #finalToTag: string | undefined
  #intervalG = 0

  constructor(
    id: TransactionId,
    readonly request: SipRequest,
    /** Where responses go (responseTarget, §18.2.2). */
    readonly target: Peer,
    durations: TimerDurations,
    private readonly tryingDelayMs: number,
  ) {
    super(id, 'proceeding', EDGES, durations)
  }

  /** The To tag of the final response sent, which an RFC 2543 ACK must carry to match (§17.2.3). */
  get finalToTag(): string | undefined {
    return this.#finalToTag
  }

  /**
   * §17.2.1: a 100 (Trying) unless the TU answers within 200 ms (`tryingDelayMs`); 0 sends it at
   * once, for a TU known to be slow.
   */
  start(now: number) {
    return this.step(() => this.arm('trying', now, this.tryingDelayMs))
  }

  /** A retransmitted INVITE or an ACK matched to this transaction (§17.2.3), from `source`. */
  receive(request: SipRequest, source: Peer, now: number) {
    return this.step(() => {
      const ack = request.method === 'ACK'
      switch (this.state) {
        case 'proceeding':
          if (!ack && this.#provisional) this.#send(this.#provisional)
          return
        case 'completed':
          if (!ack) this.#send(this.#final!)
          else {
            this.disarm('G', 'H')
            this.transition('confirmed')
            this.arm('I', now, this.durations.t4OrZero)
          }
          return
        case 'accepted':
          // RFC 6026 §8.7: INVITE retransmissions are absorbed; an ACK (to the 2xx) goes to the TU.
          if (ack) this.emit({ type: 'ack', transaction: this.id, request, source })
          return
        case 'confirmed':
        case 'terminated':
          return // Confirmed absorbs ACK retransmissions (§17.2.1)
      }
    })
  }

  /** A response from the TU. */
  respond(response: SipResponse, now: number) {
    return this.step(() => {
      const status = response.status
      if (this.state === 'accepted' && status >= 200 && status < 300) {
        this.#send(response) // the TU's own 2xx retransmission (§13.3.1.4, RFC 6026 §8.7)
        return
      }
      if (this.state !== 'proceeding') {
        throw new SipTransactionError('invalid_state', `invite_server ${this.id}: cannot send ${status} in ${this.state}`)
      }
      this.disarm('trying')
      this.#send(response)
      if (status < 200) {
        this.#provisional = response
        return
      }
      this.#finalToTag = response.headers.to().tag
      if (status < 300) {
        this.transition('accepted')
        this.arm('L', now, this.durations.transactionTimeout)
      } else {
        this.#final = response
        this.transition('completed')
        const first = this.durations.firstRetransmit
        if (first !== undefined) {
          this.#intervalG = first
          this.arm('G', now, first)
        }
        this.arm('H', now, this.durations.transactionTimeout)
      }
    })
  }

  protected fire(timer: TransactionTimer, now: number): void {
    switch (timer) {
      case 'trying':
        if (this.state === 'proceeding' && !this.#provisional) {
          this.#provisional = responseTo(this.request, 100, 'Trying')
          this.#send(this.#provisional)
        }
        return
      case 'G':
        this.#send(this.#final!)
        this.#intervalG = this.durations.backoff(this.#intervalG)
        this.arm('G', now, this.#intervalG)
        return
      case 'H':
        // No ACK: the TU hears of the failure (§17.2.1), e.g. to end the dialog it may have made.
        this.emit({ type: 'timeout', transaction: this.id, timer: 'H' })
        this.transition('terminated')
        return
      case 'I':
      case 'L':
        this.transition('terminated')
        return
    }
  }

  #send(response: SipResponse): void {
    this.emit({ type: 'send', transaction: this.id, message: response, target: this.target })
  }
}
