import { randomBytes } from 'node:crypto'
import net from 'node:net'
import {
  newBranch,
  type Peer,
  type SipListener,
  SipRequest,
  type SipResponse,
  type TransactionEvent,
  type TransactionId,
  TransactionRunner,
  type TimerClock,
} from '../../sip/index.js'

/** What a client transaction's owner hears: its responses, and how it failed if it did. */
export interface ClientHandlers {
  response(response: SipResponse): void
  /** No final response in time (Timer B/F: treat as 408), or the transport failed. */
  failed(reason: 'timeout' | 'transport_error'): void
}

/** A new request for the core (INVITE, BYE, CANCEL, OPTIONS, INFO, NOTIFY, REFER, …). */
export interface IncomingRequest {
  transaction: TransactionId
  request: SipRequest
  source: Peer
  /** For a CANCEL: the INVITE server transaction it matches (§9.2). */
  cancels?: TransactionId
}

export interface UserAgentHandlers {
  request(incoming: IncomingRequest): void
  /** An ACK for a 2xx we sent (the INVITE server transaction it matched, if any). */
  ack(request: SipRequest, source: Peer): void
  /** A response no client transaction matches: a 2xx retransmitted for an INVITE we sent (§13.2.2.4). */
  strayResponse(response: SipResponse, source: Peer): void
  /** An INVITE server transaction got no ACK for its final response (Timer H). */
  serverTimeout?(transaction: TransactionId): void
}

export interface UserAgentOptions {
  listener: SipListener
  /** Address written in Via, Contact and SDP: the one peers reach us at (OZAN_SIP_PUBLIC_ADDRESS). */
  publicHost: string
  handlers: UserAgentHandlers
  clock?: TimerClock
}

/** 32 random bits in hex: tags (§19.3) and Call-ID parts. */
export const newTag = (): string => randomBytes(4).toString('hex')
export const newCallId = (host: string): string => `${randomBytes(12).toString('hex')}@${host}`

/**
 * The UA core's one handle on the transaction layer: a listener (UDP and TCP sockets), a runner
 * over it, client transactions routed back to their owners, everything else to the core's
 * handlers. Requests it sends get their Via here (§8.1.1.7: a fresh branch, our sent-by, rport).
 */
export class SipUserAgent {
  readonly runner: TransactionRunner
  readonly #clients = new Map<TransactionId, ClientHandlers>()
  readonly #options: UserAgentOptions

  constructor(options: UserAgentOptions) {
    this.#options = options
    this.runner = new TransactionRunner({
      transport: options.listener,
      onEvent: (e) => this.#event(e),
      ...(options.clock && { clock: options.clock }),
    })
  }

  get port(): number {
    return this.#options.listener.port
  }

  get publicHost(): string {
    return this.#options.publicHost
  }

  /** Our address as sent-by / a URI host (IPv6 in brackets, §19.1.1). */
  get hostPort(): string {
    const h = this.#options.publicHost
    return `${net.isIPv6(h) ? `[${h}]` : h}:${this.port}`
  }

  /** A Contact URI for `user` on the transport a peer is reached by. */
  contact(user: string, transport: string): string {
    const t = transport.toLowerCase()
    return `<sip:${user}@${this.hostPort}${t === 'udp' ? '' : `;transport=${t}`}>`
  }

  /** Hands a parsed message from the listener to the transaction layer. */
  receive(message: SipRequest | SipResponse, source: Peer): void {
    this.runner.receive(message, source)
  }

  /** Sends a request (built without Via) in a new client transaction; its responses go to `handlers`. */
  request(request: SipRequest, target: Peer, handlers: ClientHandlers): { transaction: TransactionId; sent: SipRequest } {
    const via = `SIP/2.0/${target.transport.toUpperCase()} ${this.hostPort};branch=${newBranch()};rport`
    const sent = new SipRequest(request.method, request.uri, request.headers.without('Via').prepend('Via', via), request.body)
    const transaction = this.runner.sendRequest(sent, target)
    this.#clients.set(transaction, handlers)
    return { transaction, sent }
  }

  respond(transaction: TransactionId, response: SipResponse): void {
    this.runner.respond(transaction, response)
  }

  cancel(transaction: TransactionId): void {
    this.runner.cancel(transaction)
  }

  /** A request outside any transaction: the ACK for a 2xx (§13.2.2.4), sent with a fresh branch. */
  sendStateless(request: SipRequest, target: Peer): void {
    const via = `SIP/2.0/${target.transport.toUpperCase()} ${this.hostPort};branch=${newBranch()};rport`
    const sent = new SipRequest(request.method, request.uri, request.headers.without('Via').prepend('Via', via), request.body)
    void this.#options.listener.send(sent, target).catch(() => {})
  }

  close(): void {
    this.runner.close()
    this.#clients.clear()
  }

  #event(e: TransactionEvent): void {
    const h = this.#options.handlers
    switch (e.type) {
      case 'request':
        return h.request({ transaction: e.transaction, request: e.request, source: e.source, ...(e.cancels !== undefined && { cancels: e.cancels }) })
      case 'ack':
        return h.ack(e.request, e.source)
      case 'stray_response':
        return h.strayResponse(e.response, e.source)
      case 'response':
        return this.#clients.get(e.transaction)?.response(e.response)
      case 'timeout':
        if (e.timer === 'H') return h.serverTimeout?.(e.transaction)
        return this.#clients.get(e.transaction)?.failed('timeout')
      case 'transport_error':
        return this.#clients.get(e.transaction)?.failed('transport_error')
      case 'terminated':
        this.#clients.delete(e.transaction)
        return
    }
  }
}
