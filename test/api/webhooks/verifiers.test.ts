import { spawnSync } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { verifyWebhook, WebhookVerificationError } from '../../../sdk/node/src/index.js'
import { createEndpoint, emit, receiver, settled, webhookApp, WH, type Captured } from './webhook-fixtures.js'

// The server libraries against deliveries captured from the real server over HTTP: the bytes
// and headers a receiver actually gets, not a signature made up in the test.

const CLI = path.resolve(import.meta.dirname, '../../../sdk/python/verify_cli.py')

function python(): boolean {
  const ok = spawnSync('python3', ['--version']).status === 0
  if (!ok && process.env.CI === 'true') throw new Error('python3 is required in CI (scripts/system-packages.txt)')
  return ok
}

interface Verdict {
  ok: boolean
  code?: string
  event?: unknown
}

function viaNode(c: Captured, secret: string | string[], now?: number, raw = c.raw): Verdict {
  try {
    return { ok: true, event: verifyWebhook(raw, c.headers['x-ozan-signature'] as string, secret, now === undefined ? {} : { now: () => now }) }
  } catch (err) {
    if (err instanceof WebhookVerificationError) return { ok: false, code: err.code }
    throw err
  }
}

function viaPython(c: Captured, secret: string | string[], now?: number, raw = c.raw): Verdict {
  const input = JSON.stringify({ body_b64: raw.toString('base64'), header: c.headers['x-ozan-signature'], secret, ...(now !== undefined && { now }) })
  const res = spawnSync('python3', [CLI], { input, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } })
  if (res.status !== 0) throw new Error(`verify_cli.py exited ${res.status}: ${res.stderr}`)
  return JSON.parse(res.stdout) as Verdict
}

const verifiers = [['node', viaNode] as const, ...(python() ? [['python', viaPython] as const] : [])]

t.test('both libraries accept genuine deliveries and reject tampering, wrong secrets, stale and future timestamps', async (t) => {
  if (verifiers.length < 2) t.comment('python3 not found: only the Node library is checked here')
  const { a, owner } = await webhookApp(t)
  const r = await receiver(t)
  const ep = await createEndpoint(a, owner, { url: r.url('/ok'), events: ['session.completed'] })
  emit(a, ep.id, 'session.completed', { session_uuid: 'f2b1', transcript: [{ role: 'user', content: 'Randevu almak istiyorum, çarşamba öğleden sonra 👍' }] })
  const [captured] = await r.waitFor(1)
  await settled(a)
  const c = captured!
  const ts = Number(/t=(\d+)/.exec(String(c.headers['x-ozan-signature']))![1])
  const tampered = Buffer.from(c.raw)
  tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 1

  for (const [name, verify] of verifiers) {
    const good = verify(c, ep.secret, ts + 5)
    t.equal(good.ok, true, `${name}: genuine delivery accepted`)
    t.match(good.event, { event: 'session.completed', data: { session_uuid: 'f2b1', transcript: [{ content: /çarşamba/ }] } }, `${name}: parsed event`)
    t.equal(verify(c, ep.secret).ok, true, `${name}: accepted with the real clock and the default tolerance`)
    t.match(verify(c, ep.secret, ts, tampered), { ok: false, code: 'no_matching_signature' }, `${name}: tampered body`)
    t.match(verify(c, 'whsec_' + 'A'.repeat(43), ts), { ok: false, code: 'no_matching_signature' }, `${name}: wrong secret`)
    t.match(verify(c, ep.secret, ts + 301), { ok: false, code: 'timestamp_too_old' }, `${name}: stale`)
    t.match(verify(c, ep.secret, ts - 301), { ok: false, code: 'timestamp_in_future' }, `${name}: from the future`)
  }

  // A rotation: the next delivery carries two v1 values; either secret verifies it.
  const rotated = await a.request('POST', `${WH}/endpoints/${ep.id}/rotate-secret`, { token: owner.token, body: { overlap_seconds: 600 } })
  emit(a, ep.id, 'session.completed', { session_uuid: 'f2b2' })
  const second = (await r.waitFor(2))[1]!
  const ts2 = Number(/t=(\d+)/.exec(String(second.headers['x-ozan-signature']))![1])
  for (const [name, verify] of verifiers) {
    t.equal(verify(second, rotated.body.secret, ts2).ok, true, `${name}: the new secret verifies`)
    t.equal(verify(second, ep.secret, ts2).ok, true, `${name}: the old secret verifies during the overlap`)
  }

  // A redelivery is signed afresh and verifies as well.
  const id = Number(c.headers['x-ozan-delivery'])
  t.equal((await a.request('POST', `${WH}/deliveries/${id}/redeliver`, { token: owner.token })).status, 200)
  const third = (await r.waitFor(3))[2]!
  t.equal(third.headers['x-ozan-delivery'], String(id))
  for (const [name, verify] of verifiers) t.equal(verify(third, [rotated.body.secret]).ok, true, `${name}: the redelivery verifies`)
})
