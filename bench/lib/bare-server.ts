import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { announceReady, serveParent } from './ipc.js'

/**
 * The baseline: a bare node:http hello-world answering every request with a small JSON body.
 * Run as a child of a bench (forked with IPC), so the load generator has its own event loop.
 */
const body = Buffer.from(JSON.stringify({ hello: 'world' }))
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
  res.end(body)
})
server.keepAliveTimeout = 5_000 // same as api/server.ts
server.listen(0, '127.0.0.1', () => announceReady((server.address() as AddressInfo).port))
serveParent(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})
