/**
 * A local stand-in for Stripe's API, enough for Checkout: `POST /v1/checkout/sessions` as Stripe
 * takes it (Bearer secret key, application/x-www-form-urlencoded with bracketed keys such as
 * `line_items[0][price_data][unit_amount]`, Idempotency-Key) answering a real-shaped Checkout
 * Session with its hosted `url`; `GET /v1/checkout/sessions/{id}`; Stripe's error shape for bad
 * requests. `completedEvent()` builds the `checkout.session.completed` event Stripe would send,
 * for a test to sign (stripe.webhooks.generateTestHeaderString) and post to the webhook route.
 */
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

type Form = { [key: string]: string | Form | Form[] | string[] }

export interface StandInSession {
  id: string
  object: 'checkout.session'
  amount_total: number
  currency: string
  client_reference_id: string | null
  metadata: Record<string, string>
  mode: string
  payment_status: 'unpaid' | 'paid'
  status: 'open' | 'complete'
  success_url: string
  cancel_url: string
  url: string
  created: number
  livemode: false
}

/** `a[b][0][c]=v` pairs → nested objects and arrays, as Stripe reads its form bodies. */
export function parseStripeForm(body: string): Form {
  const out: Form = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[')
    let node: Record<string, unknown> = out
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value
      else node = (node[part] ??= /^\d+$/.test(path[i + 1]!) ? [] : {}) as Record<string, unknown>
    })
  }
  return out
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`

export class StripeStandIn {
  readonly sessions = new Map<string, StandInSession>()
  /** Every request as received: method, path, headers, parsed form. */
  readonly requests: { method: string; path: string; headers: http.IncomingHttpHeaders; form: Form }[] = []
  private readonly byIdempotencyKey = new Map<string, string>()
  private server: http.Server | null = null
  /** Answer the next create with this HTTP status and Stripe error (a test of provider failure). */
  failNext: { status: number; type: string; message: string } | null = null

  constructor(private readonly secretKey: string) {}

  get url(): string {
    const a = this.server!.address() as AddressInfo
    return `http://127.0.0.1:${a.port}`
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r))
    return this
  }

  async close(): Promise<void> {
    if (!this.server) return
    this.server.closeAllConnections()
    await new Promise<void>((r) => this.server!.close(() => r()))
  }

  /** The event Stripe sends once the buyer has paid the session. */
  completedEvent(sessionId: string, o: { eventId?: string; paid?: boolean; created?: number } = {}) {
    const s = this.sessions.get(sessionId)
    if (!s) throw new Error(`no such stand-in session ${sessionId}`)
    const paid = o.paid ?? true
    return {
      id: o.eventId ?? id('evt'),
      object: 'event',
      api_version: '2025-01-27.acacia',
      created: o.created ?? Math.floor(Date.now() / 1000),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type: 'checkout.session.completed',
      data: { object: { ...s, status: 'complete', payment_status: paid ? 'paid' : 'unpaid' } },
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const form = parseStripeForm(Buffer.concat(chunks).toString('utf8'))
    const path = (req.url ?? '').split('?')[0]!
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, form })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') })
      res.end(JSON.stringify(body))
    }
    const error = (status: number, type: string, message: string) => send(status, { error: { type, message } })
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) return error(401, 'invalid_request_error', 'Invalid API Key provided.')
    if (req.method === 'GET' && path.startsWith('/v1/checkout/sessions/')) {
      const s = this.sessions.get(path.slice('/v1/checkout/sessions/'.length))
      return s ? send(200, s) : error(404, 'invalid_request_error', 'No such checkout.session')
    }
    if (req.method !== 'POST' || path !== '/v1/checkout/sessions')
      return error(404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path}).`)
    if (this.failNext) {
      const f = this.failNext
      this.failNext = null
      return error(f.status, f.type, f.message)
    }
    const key = req.headers['idempotency-key']
    const earlier = typeof key === 'string' ? this.byIdempotencyKey.get(key) : undefined
    if (earlier) return send(200, this.sessions.get(earlier))
    const item = (form['line_items'] as Form[] | undefined)?.[0]
    const price = item?.['price_data'] as Form | undefined
    const amount = Number(price?.['unit_amount']) * Number(item?.['quantity'] ?? 1)
    const currency = price?.['currency']
    if (form['mode'] !== 'payment' || !Number.isInteger(amount) || amount <= 0 || typeof currency !== 'string')
      return error(400, 'invalid_request_error', 'Missing required param: line_items[0][price_data].')
    if (typeof form['success_url'] !== 'string') return error(400, 'invalid_request_error', 'Missing required param: success_url.')
    const sessionId = id('cs')
    const session: StandInSession = {
      id: sessionId,
      object: 'checkout.session',
      amount_total: amount,
      currency,
      client_reference_id: typeof form['client_reference_id'] === 'string' ? form['client_reference_id'] : null,
      metadata: (form['metadata'] as Record<string, string> | undefined) ?? {},
      mode: 'payment',
      payment_status: 'unpaid',
      status: 'open',
      success_url: form['success_url'],
      cancel_url: typeof form['cancel_url'] === 'string' ? form['cancel_url'] : '',
      url: `https://checkout.stripe.com/c/pay/${sessionId}`,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    }
    this.sessions.set(sessionId, session)
    if (typeof key === 'string') this.byIdempotencyKey.set(key, sessionId)
    send(200, session)
  }
}
