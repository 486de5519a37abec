import type http from 'node:http'

/** Small pieces the HTTP stand-ins share. */

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

/** Aborts when the client goes away, so a slow answer stops being written. */
export function closedSignal(res: http.ServerResponse): AbortSignal {
  const ac = new AbortController()
  res.on('close', () => ac.abort())
  return ac.signal
}

/** Waits, or stops early when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

/**
 * Listens, or rejects with the listen error (EADDRINUSE on a taken port) instead of leaving it an
 * unhandled 'error' event, so a launcher can say which port was taken.
 */
export function listening(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
