import { randomBytes, randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import WebSocket from 'ws'
import { ManualClock } from '../../../core/index.js'
import { createRepos, migrate, openDatabase, type Db } from '../../../db/index.js'
import { InProcessLiveCalls, WebCallTokens } from '../../../engine/calls/index.js'

/** An in-memory database with one organization, environment and workflow id to mint for. */
export function tokenFixture(t: { teardown(fn: () => unknown): void }, opts: { cap?: number | null } = {}) {
  const db: Db = openDatabase(':memory:')
  t.teardown(() => db.close())
  migrate(db)
  const now = Date.now()
  const organizationId = randomUUID()
  const projectId = randomUUID()
  const environmentId = randomUUID()
  db.prepare('INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(organizationId, 'Org', now, now)
  db.prepare('INSERT INTO projects (id, organization_id, name, is_default, created_at) VALUES (?, ?, ?, 1, ?)').run(projectId, organizationId, 'P', now)
  db.prepare("INSERT INTO environments (id, organization_id, project_id, slug, created_at) VALUES (?, ?, ?, 'dev', ?)").run(
    environmentId,
    organizationId,
    projectId,
    now,
  )
  const repos = createRepos(db)
  const key = randomBytes(32)
  const clock = new ManualClock(now)
  const tokens = new WebCallTokens({ key, repo: repos.webCallTokens, clock })
  const cap = { value: opts.cap ?? null }
  const liveCalls = new InProcessLiveCalls(() => cap.value)
  const binding = { organizationId, environmentId, workflowId: randomUUID() }
  return { db, repos, key, clock, tokens, liveCalls, cap, binding }
}

export type Event = { type: string; [k: string]: unknown }

/** A `ws` client that records every event, binary byte and the close. */
export class TestClient {
  readonly events: Event[] = []
  binaryBytes = 0
  readonly binaries: Buffer[] = []
  keepBinaries = true
  readonly closed: Promise<{ code: number; reason: string }>
  readonly opened: Promise<void>
  private waiters: (() => void)[] = []

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer
      if (isBinary) {
        this.binaryBytes += buf.byteLength
        if (this.keepBinaries) this.binaries.push(buf)
      } else this.events.push(JSON.parse(buf.toString('utf8')) as Event)
      for (const w of this.waiters.splice(0)) w()
    })
    ws.on('error', () => {})
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    })
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })))
  }

  static connect(url: string): TestClient {
    return new TestClient(new WebSocket(url, { perMessageDeflate: false }))
  }

  /** Waits for an event matching `pred` (already received or future). */
  async event(pred: (e: Event) => boolean, timeoutMs = 3000): Promise<Event> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const hit = this.events.find(pred)
      if (hit) return hit
      if (Date.now() > deadline) throw new Error(`no matching event; got ${JSON.stringify(this.events)}`)
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 50)
      })
    }
  }

  async until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!cond()) {
      if (Date.now() > deadline) throw new Error('condition not met in time')
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket
  }
}

export const until = async (cond: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}
