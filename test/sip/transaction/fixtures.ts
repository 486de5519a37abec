// Messages and a fake-clock driver for the transaction layer's tests.
import { SipHeaders, SipRequest, type SipResponse, SipUri } from '../../../sip/index.js'
import { type Peer, responseTo, TransactionLayer, type TransactionLayerOptions, type TransactionOutput } from '../../../sip/transaction/index.js'

export const UDP_PEER: Peer = { transport: 'UDP', host: '192.0.2.10', port: 5060 }
export const TCP_PEER: Peer = { transport: 'TCP', host: '192.0.2.10', port: 5060, connectionId: 'c1' }

export interface RequestInit {
  readonly method?: string
  readonly branch?: string
  readonly transport?: string
  readonly sentBy?: string
  readonly toTag?: string
  readonly cseq?: number
  readonly callId?: string
  readonly extra?: ReadonlyArray<readonly [string, string]>
}

/** A request as a UAC core would build it (§8.1.1), one Via. */
export function request(init: RequestInit = {}): SipRequest {
  const method = init.method ?? 'INVITE'
  const to = init.toTag === undefined ? '<sip:bob@biloxi.example>' : `<sip:bob@biloxi.example>;tag=${init.toTag}`
  return new SipRequest(
    method,
    new SipUri({ user: 'bob', host: 'biloxi.example' }),
    new SipHeaders([
      ['Via', `SIP/2.0/${init.transport ?? 'UDP'} ${init.sentBy ?? 'pc33.atlanta.example'};branch=${init.branch ?? 'z9hG4bK776asdhds'}`],
      ['Max-Forwards', '70'],
      ['To', to],
      ['From', '<sip:alice@atlanta.example>;tag=1928301774'],
      ['Call-ID', init.callId ?? 'a84b4c76e66710@pc33.atlanta.example'],
      ['CSeq', `${init.cseq ?? 314159} ${method}`],
      ...(init.extra ?? []),
    ]),
  )
}

/** A response to `req` as the far end sends it; a final one carries a To tag. */
export function reply(req: SipRequest, status: number, toTag = 'a6c85cf'): SipResponse {
  return responseTo(req, status, status === 100 ? 'Trying' : 'Reason', status === 100 ? {} : { toTag })
}

/**
 * A TransactionLayer on a fake clock: every call returns its outputs and keeps them in `log`;
 * `advanceTo(ms)` ticks at each wake-up up to ms, as the runner's timer would.
 */
export class Driver {
  readonly layer: TransactionLayer
  now = 0
  readonly log: Array<TransactionOutput & { at: number }> = []

  constructor(options: Partial<TransactionLayerOptions> = {}) {
    this.layer = new TransactionLayer(options)
  }

  receive(message: SipRequest | SipResponse, source: Peer = UDP_PEER): TransactionOutput[] {
    return this.#keep(this.layer.receive(message, source, this.now))
  }

  send(req: SipRequest, target: Peer = UDP_PEER): string {
    const { transaction, outputs } = this.layer.sendRequest(req, target, this.now)
    this.#keep(outputs)
    return transaction
  }

  respond(id: string, response: SipResponse): TransactionOutput[] {
    return this.#keep(this.layer.respond(id, response, this.now))
  }

  cancel(id: string): string | undefined {
    const { transaction, outputs } = this.layer.cancel(id, this.now)
    this.#keep(outputs)
    return transaction
  }

  transportError(id: string): TransactionOutput[] {
    return this.#keep(this.layer.transportError(id))
  }

  /** Moves time to `ms`, ticking at every wake-up on the way. Returns what the ticks emitted. */
  advanceTo(ms: number): TransactionOutput[] {
    const out: TransactionOutput[] = []
    for (let at = this.layer.wakeAt; at !== undefined && at <= ms; at = this.layer.wakeAt) {
      this.now = Math.max(this.now, at)
      out.push(...this.#keep(this.layer.tick(this.now)))
    }
    this.now = ms
    return out
  }

  advance(ms: number): TransactionOutput[] {
    return this.advanceTo(this.now + ms)
  }

  /** Times (ms) at which messages of this method or status were sent. */
  sendTimes(what: string | number): number[] {
    return this.log.filter((o) => o.type === 'send' && label(o.message) === what).map((o) => o.at)
  }

  #keep(outputs: TransactionOutput[]): TransactionOutput[] {
    for (const output of outputs) this.log.push({ ...output, at: this.now })
    return outputs
  }
}

function label(message: SipRequest | SipResponse): string | number {
  return message.kind === 'request' ? message.method : message.status
}

/** The output types, in order: a compact view for assertions. */
export function types(outputs: readonly TransactionOutput[]): string[] {
  return outputs.map((o) => (o.type === 'send' ? `send ${label(o.message)}` : o.type === 'response' ? `response ${o.response.status}` : o.type))
}
