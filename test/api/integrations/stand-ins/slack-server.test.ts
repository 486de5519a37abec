import t, { type Test } from 'tap'
import { startSlackStandIn, type SlackStandIn } from '../../../../api/integrations/stand-ins/index.js'

const TOKEN = 'xoxb-standin-0123456789'

async function standIn(t: Test): Promise<SlackStandIn> {
  const s = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => s.close())
  return s
}

async function post(s: SlackStandIn, body: unknown, o: { token?: string | null; form?: boolean; type?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': o.type ?? (o.form ? 'application/x-www-form-urlencoded' : 'application/json; charset=utf-8') }
  if (o.token !== null) headers.authorization = `Bearer ${o.token ?? TOKEN}`
  const payload = o.form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body)
  const res = await fetch(`${s.url}/chat.postMessage`, { method: 'POST', headers, body: payload })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
}

t.test('posts a message by channel name or id and answers with the channel id, ts and message', async (t) => {
  const s = await standIn(t)
  const byName = await post(s, { channel: '#general', text: 'Order 42 shipped' })
  t.equal(byName.status, 200)
  t.match(byName.body, { ok: true, channel: 'C0GENERAL01', ts: /^\d{10}\.\d{6}$/, message: { type: 'message', text: 'Order 42 shipped', bot_id: /^B/ } })
  t.equal(byName.body.message.ts, byName.body.ts)
  t.notOk('warning' in byName.body, 'no warning when the charset is given')
  const byId = await post(s, { channel: 'C0ALERTS002', text: 'second', thread_ts: byName.body.ts })
  t.match(byId.body, { ok: true, channel: 'C0ALERTS002', message: { text: 'second', thread_ts: byName.body.ts } })
  t.not(byId.body.ts, byName.body.ts, 'each message gets its own ts')
  t.same(
    s.messages.map((m) => [m.channel, m.text]),
    [
      ['C0GENERAL01', 'Order 42 shipped'],
      ['C0ALERTS002', 'second'],
    ],
  )
  t.match(s.requests[0], {
    method: 'POST',
    path: '/api/chat.postMessage',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: { channel: '#general' },
    status: 200,
  })
})

t.test('a form-encoded body with the token as a field works too; JSON without charset is warned about', async (t) => {
  const s = await standIn(t)
  const form = await post(s, { token: TOKEN, channel: 'general', text: 'via form' }, { token: null, form: true })
  t.match(form.body, { ok: true, channel: 'C0GENERAL01', message: { text: 'via form' } })
  const bare = await post(s, { channel: 'general', text: 'no charset' }, { type: 'application/json' })
  t.match(bare.body, { ok: true, warning: 'missing_charset', response_metadata: { warnings: ['missing_charset'] } })
})

t.test("Slack's method errors: HTTP 200 with ok false and the error name", async (t) => {
  const s = await standIn(t)
  const cases: [unknown, Parameters<typeof post>[2], string][] = [
    [{ channel: 'general', text: 'x' }, { token: null }, 'not_authed'],
    [{ channel: 'general', text: 'x' }, { token: 'xoxb-wrong' }, 'invalid_auth'],
    [{ channel: '#nowhere', text: 'x' }, {}, 'channel_not_found'],
    [{ text: 'x' }, {}, 'channel_not_found'],
    [{ channel: 'general', text: '   ' }, {}, 'no_text'],
    [{ channel: 'general', text: 'y'.repeat(40_001) }, {}, 'msg_too_long'],
  ]
  for (const [body, o, error] of cases) {
    const res = await post(s, body, o)
    t.equal(res.status, 200, error)
    t.same(res.body, { ok: false, error }, error)
  }
  t.equal(s.messages.length, 0, 'nothing was posted')
  t.equal(s.requests.length, cases.length, 'every request was logged')
  const unknown = await fetch(`${s.url}/chat.unknown`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(unknown.status, 404)
  t.same(await unknown.json(), { ok: false, error: 'unknown_method' })
})

t.test('injected failures: 429 ratelimited with Retry-After, a 5xx, a hang', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'status', status: 429, retryAfterS: 3 }, { kind: 'status', status: 503 }, { kind: 'hang' })
  const limited = await post(s, { channel: 'general', text: 'x' })
  t.equal(limited.status, 429)
  t.equal(limited.headers.get('retry-after'), '3')
  t.same(limited.body, { ok: false, error: 'ratelimited' })
  t.equal((await post(s, { channel: 'general', text: 'x' })).status, 503)
  const hung = await fetch(`${s.url}/chat.postMessage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(200),
  }).catch((e: Error) => e)
  t.match(hung, { name: 'TimeoutError' })
  t.match((await post(s, { channel: 'general', text: 'after' })).body, { ok: true }, 'failures are used up one per request')
})
