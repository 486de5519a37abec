import t, { type Test } from 'tap'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { integrationApp, run, storeCredential } from './integration-fixtures.js'

const TOKEN = 'xoxb-ozan-integration-0123456789'

async function setup(t: Test, token = TOKEN) {
  const slack = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'slack', { bot_token: token, base_url: slack.url })
  return { a, owner, slack }
}

t.test('post_message sends chat.postMessage with the bot token and maps the answer', async (t) => {
  const { a, owner, slack } = await setup(t)
  const res = await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'Order 42 shipped :tada:' })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { ok: true, output: { channel: 'C0GENERAL01', ts: /^\d+\.\d{6}$/, text: 'Order 42 shipped :tada:' }, duration_ms: Number })
  t.notOk('error' in res.body)
  t.equal(slack.requests.length, 1)
  const sent = slack.requests[0]!
  t.equal(sent.method, 'POST')
  t.equal(sent.path, '/api/chat.postMessage')
  t.equal(sent.headers.authorization, `Bearer ${TOKEN}`)
  t.match(sent.headers['content-type'], /^application\/json; charset=utf-8/)
  t.same(sent.body, { channel: '#general', text: 'Order 42 shipped :tada:' })
  t.same(
    slack.messages.map((m) => m.ts),
    [res.body.output.ts],
  )
  const reply = await run(a, owner, 'slack', 'post_message', { channel: 'C0GENERAL01', text: 'in thread', thread_ts: res.body.output.ts })
  t.equal(reply.body.ok, true)
  t.same(slack.requests[1]!.body, { channel: 'C0GENERAL01', text: 'in thread', thread_ts: res.body.output.ts })
})

t.test("a wrong token is ok false with Slack's own error name", async (t) => {
  const { a, owner, slack } = await setup(t, 'xoxb-revoked-token-000')
  const res = await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'hi' })
  t.equal(res.status, 200)
  t.match(res.body, { ok: false, output: null, error: { code: 'invalid_auth', message: /invalid_auth/ } })
  t.equal(slack.requests[0]!.headers.authorization, 'Bearer xoxb-revoked-token-000')
  t.equal(slack.messages.length, 0)
})

t.test('channel_not_found and rate limiting come back as failures too', async (t) => {
  const { a, owner, slack } = await setup(t)
  t.match((await run(a, owner, 'slack', 'post_message', { channel: '#nowhere', text: 'hi' })).body, { ok: false, error: { code: 'channel_not_found' } })
  slack.fail({ kind: 'status', status: 429, retryAfterS: 7 })
  t.match((await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'hi' })).body, {
    ok: false,
    error: { code: 'ratelimited', message: /retry after 7 seconds/ },
  })
  // Slack answers its own outages with a 5xx and { ok: false, error: "fatal_error" }.
  slack.fail({ kind: 'status', status: 502 })
  t.match((await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'hi' })).body, { ok: false, error: { code: 'fatal_error' } })
})

t.test('without a stored credential: 400 credential_missing naming the provider, nothing sent', async (t) => {
  const slack = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const res = await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'hi' })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'credential_missing')
  t.match(res.body.error.message, /"slack" credential \(bot_token\).*PUT \/api\/v1\/credentials/)
  const tr = await a.request('POST', '/api/v1/integrations/slack/run', {
    token: owner.token,
    headers: { 'accept-language': 'tr' },
    body: { action: 'post_message', input: { channel: 'x', text: 'y' } },
  })
  t.match(tr.body.error.message, /kimlik bilgisi/)
  t.equal(slack.requests.length, 0)
})

t.test('bad input is 422 at the offending field; the credential is not needed to find out', async (t) => {
  const { a, owner, slack } = await setup(t)
  const res = await run(a, owner, 'slack', 'post_message', { channel: '#general', thread_ts: 'yesterday' })
  t.equal(res.status, 422)
  t.match(res.body.detail, [
    { loc: ['body', 'input', 'text'], type: 'missing' },
    { loc: ['body', 'input', 'thread_ts'], msg: /Slack message ts/ },
  ])
  const extra = await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'x', as_user: true })
  t.match(extra.body.detail, [{ loc: ['body', 'input', 'as_user'], type: 'extra_forbidden' }])
  t.equal(slack.requests.length, 0)
})
