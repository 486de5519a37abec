import type { SipMessage, SipRequest, SipResponse } from '../message/index.js'
import { TransactionLayer, type TransactionLayerOptions } from './layer.js'
import type { Peer } from './peer.js'
import type { TransactionId, TransactionOutput } from './transaction.js'

/** The transport, as the transaction layer sees it. A throw or a rejected promise is a transport error of the message's transaction. */
export interface SipTransport {
  send(message: SipMessage, target: Peer): void | Promise<void>
}

/** Time for the runner: monotonic milliseconds and one-shot timers (the shape of the engine's PlayoutClock). */
export interface TimerClock {
  now(): number
  setTimer(cb: () => void, ms: number): unknown
  clearTimer(id: unknown): void
}

export const systemTimerClock: TimerClock = {
  // Monotonic: a wall-clock jump must not fire Timer B early or hold Timer A back.
  now: () => performance.now(),
  setTimer: (cb, ms) => setTimeout(cb, Math.ceil(ms)),
  clearTimer: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
}

/** What the runner tells the transaction user: every output but `send`. */
export type TransactionEvent = Exclude<TransactionOutput, { type: 'send' }>

export interface TransactionRunnerOptions {
  readonly transport: SipTransport
  readonly onEvent: (event: TransactionEvent) => void
  readonly clock?: TimerClock
  readonly layer?: Partial<TransactionLayerOptions>
}

/**
 * The thin adapter around TransactionLayer: hands `send` outputs to the transport and the rest to
 * the TU, keeps one timer for the layer's next wake-up, and turns failed sends into transport errors.
 */
export class TransactionRunner {
  readonly layer: TransactionLayer
  readonly #transport: SipTransport
  readonly #onEvent: (event: TransactionEvent) => void
  readonly #clock: TimerClock
  #timer: unknown
  #timerAt: number | undefined
  #closed = false

  constructor(options: TransactionRunnerOptions) {
    this.layer = new TransactionLayer(options.layer)
    this.#transport = options.transport
    this.#onEvent = options.onEvent
    this.#clock = options.clock ?? systemTimerClock
  }

  /** A parsed message from the transport. */
  receive(message: SipMessage, source: Peer): void {
    if (!this.#closed) this.#run(this.layer.receive(message, source, this.#clock.now()))
  }

  sendRequest(request: SipRequest, target: Peer): TransactionId {
    const { transaction, outputs } = this.layer.sendRequest(request, target, this.#clock.now())
    this.#run(outputs)
    return transaction
  }

  respond(transaction: TransactionId, response: SipResponse): void {
    this.#run(this.layer.respond(transaction, response, this.#clock.now()))
  }

  /** Returns the CANCEL's transaction, undefined when there was nothing to cancel (TransactionLayer.cancel). */
  cancel(transaction: TransactionId): TransactionId | undefined {
    const result = this.layer.cancel(transaction, this.#clock.now())
    this.#run(result.outputs)
    return result.transaction
  }

  /** Stops the timer; transactions still live are dropped without a word (the process is going). */
  close(): void {
    this.#closed = true
    this.#setTimer(undefined)
  }

  #run(outputs: readonly TransactionOutput[]): void {
    for (const output of outputs) {
      if (output.type === 'send') this.#send(output.message, output.target, output.transaction)
      else this.#onEvent(output)
    }
    this.#setTimer(this.#closed ? undefined : this.layer.wakeAt)
  }

  #send(message: SipMessage, target: Peer, transaction: TransactionId | undefined): void {
    const failed = () => {
      if (transaction !== undefined && !this.#closed) this.#run(this.layer.transportError(transaction))
    }
    try {
      const sent = this.#transport.send(message, target)
      // Reported on a later turn: a transaction fails after the outputs that came with the send.
      if (sent) sent.catch(failed)
    } catch {
      queueMicrotask(failed)
    }
  }

  #setTimer(at: number | undefined): void {
    if (at === this.#timerAt) return
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer)
    this.#timer = undefined
    this.#timerAt = at
    if (at === undefined) return
    this.#timer = this.#clock.setTimer(
      () => {
        this.#timer = undefined
        this.#timerAt = undefined
        if (!this.#closed) this.#run(this.layer.tick(this.#clock.now()))
      },
      Math.max(0, at - this.#clock.now()),
    )
  }
}
