import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { Test } from 'tap'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const RUN = (key: string) => `/api/v1/integrations/${key}/run`

/** An app whose operator allows loopback (where the stand-ins listen), or the default app (allows nothing). */
export async function integrationApp(t: Test, o: { allowLoopback: boolean; timeoutMs?: number }): Promise<{ a: TestApp; owner: Actor }> {
  const env: Record<string, string> = o.allowLoopback ? { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' } : {}
  if (o.timeoutMs) env.OZAN_INTEGRATION_TIMEOUT_MS = String(o.timeoutMs)
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a) }
}

export async function storeCredential(a: TestApp, owner: Actor, provider: string, fields: Record<string, string>): Promise<void> {
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body: { provider, fields } }), 200, `store ${provider} credential`)
}

export function run(a: TestApp, owner: Actor, key: string, action: string, input: unknown): Promise<Reply> {
  return a.request('POST', RUN(key), { token: owner.token, body: { action, input } })
}

/** A loopback HTTP server for the http action; records what it received. */
export async function echoServer(t: Test, handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = []
  const s = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString()
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      handler(req, body, res)
    })
  })
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))
  return { origin: `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`, seen }
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])

/**
 * While a test runs, outbound requests made with node's http/https may only go to loopback. The
 * SSRF refusal tests name private and metadata addresses; should the guard ever let one through,
 * this refuses to send it (and records it) instead of a packet leaving the machine.
 */
export function loopbackOnly(t: Test): { attempts: string[] } {
  const attempts: string[] = []
  const originals = [http.request, https.request] as const
  for (const mod of [http, https] as const) {
    const original = mod.request
    const wrapped = ((url: unknown, ...rest: unknown[]) => {
      const host =
        url instanceof URL
          ? url.hostname
          : typeof url === 'string'
            ? new URL(url).hostname
            : String((url as http.RequestOptions).host ?? (url as http.RequestOptions).hostname)
      const bare = host.replace(/^\[(.*)\]$/, '$1')
      if (!LOOPBACK_NAMES.has(host) && !(net.isIPv4(bare) && bare.startsWith('127.'))) {
        attempts.push(host)
        throw new Error(`test tripwire: refused to connect to ${host}`)
      }
      return (original as (...args: unknown[]) => http.ClientRequest)(url, ...rest)
    }) as typeof http.request
    Object.assign(mod, { request: wrapped })
  }
  t.teardown(() => {
    Object.assign(http, { request: originals[0] })
    Object.assign(https, { request: originals[1] })
  })
  return { attempts }
}
