import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { WebSocket, WebSocketServer, type RawData } from 'ws'

/**
 * A WebSocket relay between the browser and the engine that writes down every message, so a test
 * sees what the page really sent (binary caller frames, control messages) without trusting the
 * library's own counters, and can cut the network under a live call (the browser sees 1006).
 */

export interface Relayed {
  /** performance.now() in this process when the message passed. */
  atMs: number
  from: 'client' | 'server'
  binary: boolean
  bytes: number
  /** Text messages only. */
  text?: string
}

export interface WsProxy {
  /** `wsUrl` (the engine's ws_url) rewritten to pass through the relay, query and all. */
  via(wsUrl: string): string
  /** Every message of every connection, in order. */
  messages: Relayed[]
  /** Connections the browser opened. */
  connections: number
  /** Drops every browser connection without a close frame, as a dead network would. */
  dropClients(): void
  close(): Promise<void>
}

export async function startWsProxy(): Promise<WsProxy> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false })
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  const messages: Relayed[] = []
  const clients = new Set<WebSocket>()
  const upstreams = new Map<string, string>()
  let connections = 0
  const note = (from: Relayed['from'], data: RawData, binary: boolean) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
    messages.push({ atMs: performance.now(), from, binary, bytes: buf.length, ...(!binary && { text: buf.toString('utf8') }) })
    return buf
  }
  // RFC 6455 §7.4.1: 1005 and 1006 are never sent in a close frame; relay them as a dropped link.
  const closeWith = (ws: WebSocket, code: number, reason: Buffer) => (code === 1005 || code === 1006 ? ws.terminate() : ws.close(code, reason))

  server.on('connection', (client, req) => {
    connections++
    clients.add(client)
    const path = req.url ?? '/'
    const origin = upstreams.get(path.split('?')[0]!) ?? [...upstreams.values()].at(-1)
    const upstream = new WebSocket(`${origin}${path}`, { perMessageDeflate: false })
    const pending: Array<[Buffer, boolean]> = []
    client.on('message', (data, binary) => {
      const buf = note('client', data, binary)
      if (upstream.readyState === WebSocket.OPEN) upstream.send(buf, { binary })
      else pending.push([buf, binary])
    })
    upstream.on('open', () => {
      for (const [buf, binary] of pending.splice(0)) upstream.send(buf, { binary })
    })
    upstream.on('message', (data, binary) => {
      const buf = note('server', data, binary)
      if (client.readyState === WebSocket.OPEN) client.send(buf, { binary })
    })
    upstream.on('close', (code, reason) => client.readyState === WebSocket.OPEN && closeWith(client, code, reason))
    upstream.on('error', () => client.terminate())
    client.on('close', (code, reason) => {
      clients.delete(client)
      if (upstream.readyState === WebSocket.OPEN) closeWith(upstream, code, reason)
      else upstream.terminate()
    })
    client.on('error', () => upstream.terminate())
  })

  return {
    via(wsUrl) {
      const u = new URL(wsUrl)
      upstreams.set(u.pathname, u.origin)
      return `ws://127.0.0.1:${port}${u.pathname}${u.search}`
    },
    messages,
    get connections() {
      return connections
    },
    dropClients() {
      for (const c of clients) c.terminate()
    },
    async close() {
      for (const c of clients) c.terminate()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
