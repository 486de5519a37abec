import { createHash } from 'node:crypto'
import type { SipMessage, SipRequest, SipResponse } from '../message/index.js'
import { Deadlines } from './deadlines.js'
import { SipTransactionError } from './errors.js'
import { InviteClientTransaction } from './invite-client.js'
import { InviteServerTransaction } from './invite-server.js'
import { ackKeys, clientKey, isRfc3261Branch, responseKey, serverKey } from './matching.js'
import { NonInviteClientTransaction } from './non-invite-client.js'
import { NonInviteServerTransaction } from './non-invite-server.js'
import { type Peer, responseTarget } from './peer.js'
import { cancelFor, responseTo } from './requests.js'
import { isReliable, resolveTimerValues, TimerDurations, type TimerValues } from './timers.js'
import type { TransactionId, TransactionOutput } from './transaction.js'

export interface TransactionLayerOptions {
  readonly timers: TimerValues
  /** §17.2.1: an INVITE the TU has not answered within this many ms gets a 100 (Trying). */
  readonly tryingDelayMs: number
  /**
   * Live transactions at most (each holds its request and last response, a few KiB). A new
   * request past it is answered 503 with Retry-After without a transaction (§21.5.4); a new
   * client transaction is refused.
   */
  readonly maxTransactions: number
  /** Retry-After of that 503, in seconds. */
  readonly overloadRetryAfterS: number
}

export const DEFAULT_TRANSACTION_LAYER_OPTIONS: TransactionLayerOptions = Object.freeze({
  timers: resolveTimerValues(),
  tryingDelayMs: 200,
  maxTransactions: 10_000,
  overloadRetryAfterS: 5,
})

type AnyTransaction = InviteClientTransaction | NonInviteClientTransaction | InviteServerTransaction | NonInviteServerTransaction

interface Entry {
  readonly transaction: AnyTransaction
  /** The earliest wake-up filed in the heap for it and not yet come up. */
  filedAt?: number
  /** An INVITE client transaction's CANCEL, waiting for a provisional response (§9.1). */
  pendingCancel?: SipRequest
  cancelRequested?: boolean
}

/**
 * The transaction layer of a user agent (RFC 3261 §17, with RFC 6026): matches messages to
 * transactions, creates server transactions for new requests, runs the four state machines and
 * their timers. Pure and synchronous: every call takes the time and returns what to send and what
 * to tell the TU, in order; `wakeAt` says when `tick` is next needed. TransactionRunner drives it
 * with a transport and real timers.
 */
export class TransactionLayer {
  readonly options: TransactionLayerOptions
  readonly #entries = new Map<TransactionId, Entry>()
  readonly #deadlines = new Deadlines<TransactionId>()
  readonly #durations: { reliable: TimerDurations; unreliable: TimerDurations }

  constructor(options: Partial<TransactionLayerOptions> = {}) {
    const merged = { ...DEFAULT_TRANSACTION_LAYER_OPTIONS, ...options }
    const timers = resolveTimerValues(merged.timers)
    if (!(merged.tryingDelayMs >= 0)) throw new RangeError('tryingDelayMs must be >= 0')
    if (!Number.isInteger(merged.maxTransactions) || merged.maxTransactions < 1) throw new RangeError('maxTransactions must be a positive integer')
    if (!Number.isInteger(merged.overloadRetryAfterS) || merged.overloadRetryAfterS < 0) throw new RangeError('overloadRetryAfterS must be an integer >= 0')
    this.options = Object.freeze({ ...merged, timers })
    this.#durations = { reliable: new TimerDurations(timers, true), unreliable: new TimerDurations(timers, false) }
  }

  /** Live transactions. */
  get size(): number {
    return this.#entries.size
  }

  /** When `tick` is next needed (it may find nothing due: a timer stopped leaves its entry behind). */
  get wakeAt(): number | undefined {
    return this.#deadlines.next
  }

  /** The state of a live transaction; undefined once it has terminated. */
  state(id: TransactionId): string | undefined {
    return this.#entries.get(id)?.transaction.state
  }

  /** A message the transport received from `source` (parsed, so its Via, From, To, Call-ID and CSeq are sound). */
  receive(message: SipMessage, source: Peer, now: number): TransactionOutput[] {
    return message.kind === 'response' ? this.#receiveResponse(message, source, now) : this.#receiveRequest(message, source, now)
  }

  /**
   * Starts a client transaction for `request` sent to `target` (§17.1). The request's top Via must
   * carry an RFC 3261 branch (newBranch()) not used by another live client transaction. An ACK
   * starts none: for a 2xx the TU sends it itself, for a failure the transaction does.
   */
  sendRequest(request: SipRequest, target: Peer, now: number): { transaction: TransactionId; outputs: TransactionOutput[] } {
    const branch = request.headers.topVia()?.branch
    if (request.method === 'ACK') throw new SipTransactionError('invalid_request', 'an ACK starts no client transaction')
    if (!isRfc3261Branch(branch)) throw new SipTransactionError('invalid_request', 'the top Via needs an RFC 3261 branch (z9hG4bK…)')
    if (request.headers.cseq().method !== request.method) throw new SipTransactionError('invalid_request', 'the CSeq method differs from the request method')
    if (this.#entries.has(clientKey(branch, request.method)))
      throw new SipTransactionError('duplicate_transaction', `a client transaction with branch ${branch} is live`)
    if (this.#entries.size >= this.options.maxTransactions) throw new SipTransactionError('too_many_transactions', 'too many live transactions')
    return this.#startClient(request, branch, target, now)
  }

  /** A response from the TU for a server transaction. A transaction already ended takes nothing (the TU was told). */
  respond(id: TransactionId, response: SipResponse, now: number): TransactionOutput[] {
    const entry = this.#entries.get(id)
    if (!entry) return []
    const transaction = entry.transaction
    if (transaction.kind !== 'invite_server' && transaction.kind !== 'non_invite_server') {
      throw new SipTransactionError('invalid_request', `${id} is a client transaction`)
    }
    return this.#settle(entry, transaction.respond(response, now))
  }

  /**
   * Cancels the INVITE of a client transaction (§9.1): sends a CANCEL in its own non-INVITE client
   * transaction, at once if a provisional response came, else when the first one does, never once
   * a final one did. Returns the CANCEL's transaction id, undefined when there is nothing to cancel.
   */
  cancel(id: TransactionId, now: number): { transaction: TransactionId | undefined; outputs: TransactionOutput[] } {
    const entry = this.#entries.get(id)
    const invite = entry?.transaction
    if (!entry || invite?.kind !== 'invite_client' || (invite.state !== 'calling' && invite.state !== 'proceeding')) {
      return { transaction: undefined, outputs: [] }
    }
    const cancel = cancelFor(invite.request)
    const cancelId = clientKey(cancel.headers.topVia()!.branch!, 'CANCEL')
    if (entry.cancelRequested) return { transaction: cancelId, outputs: [] }
    entry.cancelRequested = true
    if (invite.state === 'calling') {
      entry.pendingCancel = cancel
      return { transaction: cancelId, outputs: [] }
    }
    return { transaction: cancelId, outputs: this.#sendCancel(invite, cancel, now) }
  }

  /** The transport could not send a message of this transaction (§17.1.4, §17.2.4). */
  transportError(id: TransactionId): TransactionOutput[] {
    const entry = this.#entries.get(id)
    return entry ? this.#settle(entry, entry.transaction.transportError()) : []
  }

  /** Fires the timers due at `now`. */
  tick(now: number): TransactionOutput[] {
    const outputs: TransactionOutput[] = []
    for (const { at, key } of this.#deadlines.takeDue(now)) {
      const entry = this.#entries.get(key)
      if (!entry) continue // ended since it was filed
      if (entry.filedAt === at) entry.filedAt = undefined
      outputs.push(...this.#settle(entry, entry.transaction.tick(now)))
    }
    return outputs
  }

  #receiveResponse(response: SipResponse, source: Peer, now: number): TransactionOutput[] {
    // §8.1.3.3: a response with more than one Via was meant for a proxy, not for this UA.
    if (response.headers.via().length !== 1) return []
    const key = responseKey(response)
    const entry = key === undefined ? undefined : this.#entries.get(key)
    const transaction = entry?.transaction
    if (!entry || (transaction?.kind !== 'invite_client' && transaction?.kind !== 'non_invite_client')) {
      return [{ type: 'stray_response', response, source }]
    }
    const outputs = transaction.receive(response, now)
    if (transaction.kind === 'invite_client' && entry.pendingCancel && transaction.state === 'proceeding') {
      const cancel = entry.pendingCancel
      entry.pendingCancel = undefined
      outputs.push(...this.#sendCancel(transaction, cancel, now))
    }
    return this.#settle(entry, outputs)
  }

  #receiveRequest(request: SipRequest, source: Peer, now: number): TransactionOutput[] {
    if (request.method === 'ACK') {
      const legacy = !isRfc3261Branch(request.headers.topVia()?.branch)
      for (const key of ackKeys(request)) {
        const entry = this.#entries.get(key)
        const transaction = entry?.transaction
        // Without an RFC 3261 branch the ACK carries the To tag of the response it acknowledges (§17.2.3).
        if (entry && transaction?.kind === 'invite_server' && (legacy === false || transaction.finalToTag === request.headers.to().tag)) {
          return this.#settle(entry, transaction.receive(request, source, now))
        }
      }
      return [{ type: 'ack', request, source }] // an ACK for a 2xx, for the core (§17.2.3, RFC 6026 §8.7)
    }
    const key = serverKey(request, request.method)
    if (key === undefined) return []
    const existing = this.#entries.get(key)
    if (existing) {
      const transaction = existing.transaction
      if (transaction.kind !== 'invite_server' && transaction.kind !== 'non_invite_server') return []
      return this.#settle(existing, transaction.receive(request, source, now))
    }
    const target = responseTarget(request.headers.topVia()!, source)
    if (this.#entries.size >= this.options.maxTransactions) return [this.#overloaded(request, target)]
    const durations = this.#durationsFor(source.transport)
    const transaction =
      request.method === 'INVITE'
        ? new InviteServerTransaction(key, request, target, durations, this.options.tryingDelayMs)
        : new NonInviteServerTransaction(key, request, target, durations)
    const entry: Entry = { transaction }
    this.#entries.set(key, entry)
    const cancels = request.method === 'CANCEL' ? this.#cancelledInvite(request) : undefined
    const delivered: TransactionOutput = { type: 'request', transaction: key, request, source, ...(cancels === undefined ? {} : { cancels }) }
    const started = transaction.kind === 'invite_server' ? transaction.start(now) : []
    return this.#settle(entry, [delivered, ...started])
  }

  #startClient(request: SipRequest, branch: string, target: Peer, now: number): { transaction: TransactionId; outputs: TransactionOutput[] } {
    const id = clientKey(branch, request.method)
    const durations = this.#durationsFor(target.transport)
    const transaction =
      request.method === 'INVITE' ? new InviteClientTransaction(id, request, target, durations) : new NonInviteClientTransaction(id, request, target, durations)
    const entry: Entry = { transaction }
    this.#entries.set(id, entry)
    return { transaction: id, outputs: this.#settle(entry, transaction.start(now)) }
  }

  /** §9.2: the INVITE server transaction a CANCEL matches, if still live. */
  #cancelledInvite(cancel: SipRequest): TransactionId | undefined {
    const key = serverKey(cancel, 'INVITE')
    return key !== undefined && this.#entries.get(key)?.transaction.kind === 'invite_server' ? key : undefined
  }

  #sendCancel(invite: InviteClientTransaction, cancel: SipRequest, now: number): TransactionOutput[] {
    // §9.1: the CANCEL goes where the INVITE went. It is not held to maxTransactions: there is at
    // most one per INVITE, and refusing it would leave the call ringing.
    const branch = cancel.headers.topVia()!.branch!
    const sent = this.#entries.has(clientKey(branch, 'CANCEL')) ? [] : this.#startClient(cancel, branch, invite.target, now).outputs
    return [...sent, ...invite.cancelled(now)]
  }

  /** A 503 sent without a transaction; its To tag is derived from the request, so a retransmission gets the same one (§8.2.7). */
  #overloaded(request: SipRequest, target: Peer): TransactionOutput {
    const headers = request.headers
    const toTag = createHash('sha256')
      .update(`${headers.callId()}\n${headers.cseq().serialize()}\n${headers.getAll('Via')[0]}`)
      .digest('hex')
      .slice(0, 16)
    const response = responseTo(request, 503, 'Service Unavailable', { toTag, headers: [['Retry-After', String(this.options.overloadRetryAfterS)]] })
    return { type: 'send', message: response, target }
  }

  /** After a transaction acted: forgets it once terminated, else files its next wake-up. */
  #settle(entry: Entry, outputs: TransactionOutput[]): TransactionOutput[] {
    const transaction = entry.transaction
    if (transaction.terminated) {
      this.#entries.delete(transaction.id)
      return outputs
    }
    const at = transaction.wakeAt
    if (at !== undefined && (entry.filedAt === undefined || at < entry.filedAt)) {
      entry.filedAt = at
      this.#deadlines.add(at, transaction.id)
    }
    return outputs
  }

  #durationsFor(transport: string): TimerDurations {
    return isReliable(transport) ? this.#durations.reliable : this.#durations.unreliable
  }
}
