import t from 'tap'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { echoServer, integrationApp, loopbackOnly, run, storeCredential } from './integration-fixtures.js'

// The default operator setting allows no private range. Every refusal below happens before a
// socket is opened; `loopbackOnly` makes sure that even a regression would send nothing elsewhere.

t.test('at run time the http action refuses loopback, private, metadata and odd IP spellings', async (t) => {
  const { attempts } = loopbackOnly(t)
  const { a, owner } = await integrationApp(t, { allowLoopback: false })
  const s = await echoServer(t, (_req, _body, res) => res.end('reached'))
  const port = new URL(s.origin).port
  const cases: [string, RegExp][] = [
    [`http://127.0.0.1:${port}/`, /loopback/],
    [`http://localhost:${port}/`, /loopback/], // a host name that resolves to 127.0.0.1
    [`http://2130706433:${port}/`, /loopback/], // decimal
    [`http://0177.0.0.1:${port}/`, /loopback/], // octal
    [`http://0x7f.1:${port}/`, /loopback/], // hex, short form
    [`http://[::1]:${port}/`, /loopback/],
    [`http://[::ffff:127.0.0.1]:${port}/`, /loopback/], // IPv4-mapped IPv6
    ['http://10.0.0.1/', /private/],
    ['http://192.168.1.1:8080/admin', /private/],
    ['http://169.254.169.254/latest/meta-data/', /metadata/],
    ['http://[fd00:ec2::254]/latest/meta-data/', /metadata/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://0.0.0.0/', /unspecified/],
    ['file:///etc/passwd', /http or https/],
    ['http://admin:secret@8.8.8.8/', /user name or password/],
  ]
  for (const [url, reason] of cases) {
    const res = await run(a, owner, 'http', 'request', { url })
    t.equal(res.status, 200, url)
    t.match(res.body, { ok: false, output: null, error: { code: 'destination_refused', message: reason } }, url)
  }
  t.equal(s.seen.length, 0, 'the loopback server was never reached')
  t.same(attempts, [], 'no connection was attempted anywhere')
})

t.test('the operator allow-list lets the same requests reach a local server', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, (_req, _body, res) => res.end('reached'))
  const port = new URL(s.origin).port
  for (const url of [`http://127.0.0.1:${port}/a`, `http://localhost:${port}/b`, `http://2130706433:${port}/c`, `http://0x7f.1:${port}/d`]) {
    t.match((await run(a, owner, 'http', 'request', { url })).body, { ok: true, output: { status: 200, body: 'reached' } }, url)
  }
  t.same(
    s.seen.map((r) => r.url),
    ['/a', '/b', '/c', '/d'],
  )
  const res = await run(a, owner, 'http', 'request', { url: 'http://10.0.0.1/' })
  t.match(res.body, { ok: false, error: { code: 'destination_refused' } }, 'ranges outside the list stay refused')
})

t.test("a credential's base_url goes through the guard too", async (t) => {
  const { attempts } = loopbackOnly(t)
  const slack = await startSlackStandIn({ botToken: 'xoxb-guarded-0123456789' })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: false })
  await storeCredential(a, owner, 'slack', { bot_token: 'xoxb-guarded-0123456789', base_url: slack.url })
  const res = await run(a, owner, 'slack', 'post_message', { channel: '#general', text: 'hi' })
  t.match(res.body, { ok: false, error: { code: 'destination_refused', message: /loopback/ } })
  t.equal(slack.requests.length, 0, 'the stand-in on loopback was not reached without the allow-list')
  t.same(attempts, [])
})
