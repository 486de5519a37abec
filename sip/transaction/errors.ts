/** Why the transaction layer refused a call from its user: always a programming error or an overload, never an input from the network. */
export type SipTransactionErrorCode =
  /** A transition the state machine does not have, e.g. a second final response to an INVITE. */
  | 'invalid_state'
  /** A request that cannot start a client transaction (no RFC 3261 branch, ACK, method mismatch). */
  | 'invalid_request'
  /** A branch already used by a live client transaction (§8.1.1.7: unique per request). */
  | 'duplicate_transaction'
  /** `maxTransactions` live transactions already. */
  | 'too_many_transactions'

export class SipTransactionError extends Error {
  constructor(
    readonly code: SipTransactionErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'SipTransactionError'
  }
}
