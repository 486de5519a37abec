import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../core/index.js'
import type { App } from './app.js'

export interface RunningServer {
  server: http.Server
  port: number
  /**
   * Stops accepting connections; lets requests in flight finish (their responses say
   * `Connection: close`, so the client does not reuse the socket) and ends idle kept-alive
   * sockets with a FIN; after `timeoutMs` cuts whatever is still open.
   */
  close(timeoutMs: number): Promise<void>
}

/** Only the Koa app is served here; the rest of `App` is the caller's to close. */
export async function listen(app: Pick<App, 'koa'>, host: string, port: number, logger: Logger): Promise<RunningServer> {
  const server = http.createServer(app.koa.callback())
  // Slow-loris guards: a client must send its headers and body within these windows.
  server.headersTimeout = 20_000
  server.requestTimeout = 60_000
  server.keepAliveTimeout = 5_000
  const inFlight = new Set<http.ServerResponse>()
  let closing = false
  server.on('request', (_req, res) => {
    inFlight.add(res)
    // A request that reached an already-open connection after shutdown began is still answered,
    // but is the last one on it: Node then ends the socket after the response.
    if (closing) res.shouldKeepAlive = false
    res.on('close', () => {
      inFlight.delete(res)
      // A response whose headers promised keep-alive before shutdown began leaves its socket idle:
      // end it now rather than at the keep-alive timeout. (Node marks it idle after 'close'.)
      if (closing) setImmediate(() => server.closeIdleConnections())
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
      closing = true
      // Node writes `Connection: close` and ends the socket after the response when this is false;
      // a response already streaming is dealt with when it closes (above).
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false
      // server.close() refuses new connections and, on Node 20, ends idle ones; the callback runs
      // once every connection is gone.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (inFlight.size > 0) logger.info({ in_flight: inFlight.size }, 'waiting for in-flight requests')
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)))
      if ((await Promise.race([closed, timedOut])) === true) {
        logger.warn({ in_flight: inFlight.size }, 'shutdown timeout; closing remaining connections')
        server.closeAllConnections()
      }
      clearTimeout(timer)
      await closed
    },
  }
}
