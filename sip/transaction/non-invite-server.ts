import type { SipRequest, SipResponse } from '../message/index.js'
import { SipTransactionError } from './errors.js'
import type { Peer } from './peer.js'
import type { TimerDurations } from './timers.js'
import { Transaction, type TransactionId, type TransactionTimer } from './transaction.js'

/** §17.2.2 (Figure 8). */
export type NonInviteServerState = 'trying' | 'proceeding' | 'completed' | 'terminated'

const EDGES: Record<NonInviteServerState, readonly NonInviteServerState[]> = {
  trying: ['proceeding', 'completed', 'terminated'],
  proceeding: ['completed', 'terminated'],
  completed: ['terminated'],
  terminated: [],
}

/** The server side of any request but INVITE and ACK: answers retransmissions with the last response, then waits them out (Timer J). */
export class NonInviteServerTransaction extends Transaction<NonInviteServerState> {
  readonly kind = 'non_invite_server'
  #last: SipResponse | undefined

  constructor(
    id: TransactionId,
    readonly request: SipRequest,
    /** Where responses go (responseTarget, §18.2.2). */
    readonly target: Peer,
    durations: TimerDurations,
  ) {
    super(id, 'trying', EDGES, durations)
  }

  /** A retransmission: ignored in Trying, answered with the last response after (§17.2.2). */
  receive(_request: SipRequest, _source: Peer) {
    return this.step(() => {
      if (this.#last && (this.state === 'proceeding' || this.state === 'completed')) this.#send(this.#last)
    })
  }

  respond(response: SipResponse, now: number) {
    return this.step(() => {
      // "Any other final responses passed by the TU to the server transaction MUST be discarded while in the Completed state."
      if (this.state === 'completed' && response.status >= 200) return
      if (this.state !== 'trying' && this.state !== 'proceeding') {
        throw new SipTransactionError('invalid_state', `non_invite_server ${this.id}: cannot send ${response.status} in ${this.state}`)
      }
      this.#last = response
      this.#send(response)
      if (response.status < 200) {
        if (this.state === 'trying') this.transition('proceeding')
      } else {
        this.transition('completed')
        this.arm('J', now, this.durations.timerJ)
      }
    })
  }

  protected fire(timer: TransactionTimer): void {
    if (timer === 'J') this.transition('terminated')
  }

  #send(response: SipResponse): void {
    this.emit({ type: 'send', transaction: this.id, message: response, target: this.target })
  }
}
