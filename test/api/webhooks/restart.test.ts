import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { receiver } from './webhook-fixtures.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')
const EVENTS = 30

/** The real run command on a data directory; resolves with its API origin once it is up. */
function startServer(dataDir: string): Promise<{ child: ChildProcess; origin: string }> {
  return new Promise((resolve, reject) => {
    // node itself with tsx's loader, not the tsx CLI: SIGKILL must hit the server process, and the
    // CLI runs the server in a child it cannot forward SIGKILL to.
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ozan.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        OZAN_DATA_DIR: dataDir,
        OZAN_PORT: '0',
        OZAN_ENGINE_PORT: '0',
        OZAN_HOST: '127.0.0.1',
        OZAN_LOG_LEVEL: 'warn',
        OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
        OZAN_WEBHOOK_MAX_PER_ENDPOINT: '2',
      },
    })
    let out = ''
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no start-up within 30 s: ${out}`))), 30_000)
    child.stdout!.on('data', (d) => {
      out += d
      const m = /API:\s+http:\/\/[^:/]+:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, origin: `http://127.0.0.1:${m[1]}` })
      }
    })
    child.stderr!.on('data', (d) => (out += d))
    child.on('exit', (code) => (clearTimeout(timer), reject(new Error(`exited ${code}: ${out}`))))
  })
}

async function call(origin: string, method: string, p: string, token: string | null, body?: unknown) {
  const res = await fetch(origin + p, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json().catch(() => null)) as any } // eslint-disable-line @typescript-eslint/no-explicit-any
}

t.test('killed with deliveries pending and in flight: after a restart every one arrives, one request per attempt', async (t) => {
  const dataDir = t.testdir({})
  let holding = true
  const held: (() => void)[] = []
  const r = await receiver(t, {
    '/hook': (_q, res) => {
      if (holding) held.push(() => res.end())
      else res.end('ok')
    },
  })
  t.teardown(() => held.forEach((f) => f()))

  const first = await startServer(dataDir)
  const reg = await call(first.origin, 'POST', '/api/v1/auth/register', null, { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' })
  t.equal(reg.status, 201)
  const token = reg.body.access_token as string
  const ep = await call(first.origin, 'POST', '/api/v1/webhooks/endpoints', token, { url: r.url('/hook'), events: ['member.invited'], timeout_seconds: 60 })
  t.equal(ep.status, 201)
  for (let i = 0; i < EVENTS; i++) {
    const inv = await call(first.origin, 'POST', '/api/v1/rbac/invitations', token, { email: `invitee${i}@example.com`, role_id: 4 })
    t.equal(inv.status, 201, `invitation ${i}`)
  }
  await r.waitFor(2)
  await new Promise((res) => setTimeout(res, 200))
  t.equal(r.seen.length, 2, 'two attempts in flight (the per-endpoint cap), the rest pending')
  first.child.kill('SIGKILL')
  await new Promise((res) => first.child.once('exit', res))

  holding = false
  const second = await startServer(dataDir)
  t.teardown(() => {
    second.child.kill('SIGKILL')
  })
  await r.waitFor(EVENTS + 2, 20_000)
  // Give a duplicate time to show up, should there be one.
  await new Promise((res) => setTimeout(res, 500))

  const page = await call(second.origin, 'GET', '/api/v1/webhooks/deliveries?limit=100', token)
  t.equal(page.status, 200)
  t.equal(page.body.total, EVENTS, 'one delivery per event')
  const received = new Map<string, number>()
  for (const c of r.seen) received.set(String(c.headers['x-ozan-delivery']), (received.get(String(c.headers['x-ozan-delivery'])) ?? 0) + 1)
  t.equal(received.size, EVENTS, 'every delivery id arrived')
  let interrupted = 0
  for (const d of page.body.items) {
    t.equal(d.status, 'succeeded', `delivery ${d.id} succeeded`)
    const detail = (await call(second.origin, 'GET', `/api/v1/webhooks/deliveries/${d.id}`, token)).body
    t.equal(received.get(String(d.id)), detail.attempts.length, `delivery ${d.id}: one request per attempt`)
    if (detail.attempts.length === 2) {
      interrupted++
      t.match(detail.attempts, [
        { outcome: 'interrupted', trigger: 'event' },
        { outcome: 'succeeded', trigger: 'resume' },
      ])
    } else t.match(detail.attempts, [{ outcome: 'succeeded', trigger: 'event' }])
  }
  t.equal(interrupted, 2, 'exactly the two attempts cut by the kill were made again')
  t.equal(r.seen.length, EVENTS + 2)
})
