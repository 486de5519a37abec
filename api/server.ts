import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../core/index.js'
import type { App } from './app.js'

export interface RunningServer {
  server: http.Server
  port: number
  /** Stops accepting, waits up to `timeoutMs` for in-flight requests, then cuts the rest. */
  close(timeoutMs: number): Promise<void>
}

export async function listen(app: App, host: string, port: number, logger: Logger): Promise<RunningServer> {
  const server = http.createServer(app.koa.callback())
  // Slow-loris guards: a client must send its headers and body within these windows.
  server.headersTimeout = 20_000
  server.requestTimeout = 60_000
  server.keepAliveTimeout = 5_000
  let inFlight = 0
  let drained: (() => void) | null = null
  server.on('request', (_req, res) => {
    inFlight++
    res.on('close', () => {
      inFlight--
      if (inFlight === 0) drained?.()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close(timeoutMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (inFlight > 0) {
        logger.info({ in_flight: inFlight }, 'waiting for in-flight requests')
        const allDone = new Promise<void>((resolve) => (drained = resolve))
        const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref())
        if ((await Promise.race([allDone.then(() => false), timedOut])) === true) {
          logger.warn({ in_flight: inFlight }, 'shutdown timeout; closing remaining connections')
        }
      }
      server.closeAllConnections()
      await closed
    },
  }
}
