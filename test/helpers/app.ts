import type http from 'node:http'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { createLogger, loadConfig, loadSecrets, ManualClock, type Clock, type ResolveHost } from '../../core/index.js'
import { migrate, openDatabase, type Db } from '../../db/index.js'
import { createApp, listen, type AnyRoute, type App, type Services } from '../../api/index.js'

export interface Reply<T = any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number
  headers: Headers
  text: string
  body: T
}

export interface RequestOptions {
  body?: unknown
  /** Sent as is, instead of JSON-encoding `body`. */
  raw?: string | Buffer
  headers?: Record<string, string>
  token?: string
  apiKey?: string
}

export interface TestApp {
  url: string
  /** The node:http server (tests that observe the server side of a connection). */
  httpServer: http.Server
  app: App
  services: Services
  db: Db
  clock: Clock
  dataDir: string
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[]
  request<T = any>(method: string, urlPath: string, o?: RequestOptions): Promise<Reply<T>> // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Registers a fresh user; returns the TokenResponse. */
  register(email?: string, password?: string): Promise<any> // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>
}

export interface TestAppOptions {
  env?: Record<string, string>
  clock?: Clock
  extraRoutes?: (s: Services) => AnyRoute[]
  /** Host-name resolution for outbound requests (SSRF tests point names at chosen addresses). */
  resolve?: ResolveHost
}

let counter = 0

/** A real app on a temporary SQLite file and a free port, with logs captured in memory. */
export async function startTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-test-'))
  // The test clock does not move unless a test moves it, so buckets never refill on their own:
  // tests get roomy rate limits by default, and the rate-limit tests set their own small ones.
  const roomy = Object.fromEntries(
    ['ORG', 'KEY', 'ADDRESS'].flatMap((k) => [
      [`OZAN_RATE_LIMIT_${k}_BURST`, '1000000'],
      [`OZAN_RATE_LIMIT_${k}_PER_MIN`, '1000000'],
    ]),
  )
  const config = loadConfig({ OZAN_DATA_DIR: dataDir, OZAN_PORT: '0', OZAN_HOST: '127.0.0.1', OZAN_LOG_LEVEL: 'info', ...roomy, ...o.env })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const logger = createLogger(config.logLevel, sink)
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const clock = o.clock ?? new ManualClock(Date.now())
  const app = createApp({ db, config, secrets: loadSecrets(config), logger, clock, extraRoutes: o.extraRoutes, validateResponses: true, resolve: o.resolve })
  const server = await listen(app, '127.0.0.1', 0, logger)
  const url = `http://127.0.0.1:${server.port}`

  async function request(method: string, urlPath: string, r: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...r.headers }
    let body: string | Buffer | undefined = r.raw
    if (r.body !== undefined) {
      body = JSON.stringify(r.body)
      headers['content-type'] ??= 'application/json'
    }
    if (r.token) headers.authorization = `Bearer ${r.token}`
    if (r.apiKey) headers['x-api-key'] = r.apiKey
    const res = await fetch(url + urlPath, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: res.status, headers: res.headers, text, body: parsed }
  }

  return {
    url,
    httpServer: server.server,
    app,
    services: app.services,
    db,
    clock,
    dataDir,
    logs,
    request,
    async register(email, password = 'correct horse battery') {
      const res = await request('POST', '/api/v1/auth/register', {
        body: { email: email ?? `user${++counter}-${Date.now()}@example.com`, password, name: 'Test User' },
      })
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`)
      return res.body
    },
    async close() {
      await server.close(1000)
      await app.close()
      db.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** The token in the newest mail of a kind sent to an address (read from the outbox table). */
export function mailedToken(t: TestApp, email: string, kind: 'verify_email' | 'reset_password'): string {
  const mails = t.services.repos.mailOutbox.forRecipient(email).filter((m) => m.kind === kind)
  const last = mails.at(-1)
  if (!last) throw new Error(`no ${kind} mail for ${email}`)
  const m = /token=([^\s&]+)/.exec(last.body_text)
  if (!m) throw new Error('no token in mail')
  return decodeURIComponent(m[1]!)
}
