import http from 'node:http'
import type net from 'node:net'
import type { Test } from 'tap'
import type { Clock, ResolveHost } from '../../../core/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const WH = '/api/v1/webhooks'

/** One request as the receiver got it: the raw bytes are what a verifier must be given. */
export interface Captured {
  path: string
  headers: http.IncomingHttpHeaders
  raw: Buffer
  at: number
}

export type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse) => void

/**
 * A real HTTP receiver on loopback. The path picks the behaviour: /ok answers 200, /fail 500,
 * /redirect 302 to /ok, /hang never answers; `routes` adds or replaces any of them.
 */
export async function receiver(t: Test, routes: Record<string, Behaviour> = {}) {
  const seen: Captured[] = []
  const waiters: (() => void)[] = []
  const behaviours: Record<string, Behaviour> = {
    '/ok': (_q, r) => r.end('thanks'),
    '/fail': (_q, r) => ((r.statusCode = 500), r.end('x'.repeat(5000))),
    '/redirect': (_q, r) => ((r.statusCode = 302), r.setHeader('location', '/ok'), r.end()),
    '/hang': () => undefined,
    ...routes,
  }
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, raw: Buffer.concat(parts), at: Date.now() })
      for (const w of waiters.splice(0)) w()
      ;(behaviours[req.url!.split('?')[0]!] ?? ((_q, r) => ((r.statusCode = 404), r.end())))(req, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    seen,
    /** Resolves once `n` requests in all have arrived. */
    async waitFor(n: number, timeoutMs = 10_000): Promise<Captured[]> {
      const deadline = Date.now() + timeoutMs
      while (seen.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver: ${seen.length} of ${n} requests after ${timeoutMs} ms`)
        await new Promise<void>((r) => {
          waiters.push(r)
          setTimeout(r, 50)
        })
      }
      return seen
    },
  }
}

/** An app whose operator allows loopback (where receivers listen), unless told otherwise. */
export async function webhookApp(
  t: Test,
  o: { allowLoopback?: boolean; resolve?: ResolveHost; clock?: Clock; env?: Record<string, string> } = {},
): Promise<{ a: TestApp; owner: Actor }> {
  const env = { ...(o.allowLoopback === false ? {} : { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }), ...o.env }
  const a = await startTestApp({ env, resolve: o.resolve, clock: o.clock })
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a) }
}

export async function createEndpoint(a: TestApp, owner: Actor, body: Record<string, unknown>): Promise<Record<string, any>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return expectStatus(
    await a.request('POST', `${WH}/endpoints`, { token: owner.token, body: { events: ['workflow.published'], ...body } }),
    201,
    'create endpoint',
  )
}

/** Publishes a domain event into the endpoint's organization and environment, as a service would. */
export function emit(a: TestApp, endpointId: number, type: string, data: Record<string, unknown> = {}): void {
  const row = a.services.repos.webhooks.endpointById(endpointId)!
  a.services.bus.publish({ type, organizationId: row.organization_id, environmentId: row.environment_id, occurredAt: a.clock.now(), data })
}

/** Waits until the dispatcher has nothing pending or in flight. */
export const settled = (a: TestApp) => a.services.webhookDispatcher.idle()

export async function delivery(a: TestApp, owner: Actor, id: number): Promise<Record<string, any>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return expectStatus(await a.request('GET', `${WH}/deliveries/${id}`, { token: owner.token }), 200, `get delivery ${id}`)
}
