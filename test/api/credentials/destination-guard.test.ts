import net, { type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import type { ResolveHost } from '../../../core/index.js'
import { startTestApp, type Reply, type TestApp, type TestAppOptions } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { CHAT_AGENT } from '../sessions/session-fixtures.js'

// Issue #18: an organization's provider base URL goes through the outbound guard when stored
// (422 destination_refused at the field) and again when each connection opens; the operator's
// allowed ranges (OZAN_ALLOW_PRIVATE_CIDRS) are the only way to a private or loopback address,
// and the operator's own OZAN_OPENAI_BASE_URL stays trusted.

const CREDENTIALS = '/api/v1/credentials'
/** The address this test app is configured to listen on (OZAN_HOST): a public one, so only rule 4 refuses it. */
const OWN_ADDRESS = '93.184.216.34'

/** DNS from a table a test may change between lookups (rebinding); other names do not exist. */
function dns(table: Record<string, string[]>): ResolveHost {
  return async (host) => {
    const answers = table[host]
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }))
  }
}

/** A loopback TCP listener that only counts connections: the proof that nothing was sent. */
async function counter(t: Test): Promise<{ port: number; connections: () => number }> {
  let n = 0
  const server = net.createServer((s) => {
    n++
    s.destroy()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { port: (server.address() as AddressInfo).port, connections: () => n }
}

async function scene(t: Test, o: TestAppOptions = {}): Promise<{ a: TestApp; owner: Actor; put: (provider: string, base_url: string) => Promise<Reply> }> {
  const a = await startTestApp(o)
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const put = (provider: string, base_url: string) =>
    a.request('PUT', CREDENTIALS, { token: owner.token, body: { provider, fields: { api_key: 'sk-guarded-key-0123456789', base_url } } })
  return { a, owner, put }
}

async function chat(a: TestApp, token: string): Promise<(text: string) => Promise<Reply>> {
  const wf = (await a.request('POST', '/api/v1/workflows', { token, body: CHAT_AGENT })).body
  await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token })
  const started = await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token })
  return (text) => a.request('POST', `/api/v1/workflows/${wf.id}/sessions/${started.body.session_id}/messages`, { token, body: { text } })
}

t.test('a stored base_url is refused (422 destination_refused) for every spelling of a refused address, IPv6, and names resolving to one', async (t) => {
  const resolve = dns({
    'internal.example.test': ['10.20.30.40'],
    'v6.internal.test': ['fd12:3456::1'],
    'mixed.example.test': ['93.184.216.35', '127.0.0.1'],
    'metadata.example.test': ['169.254.169.254'],
  })
  const { a, owner, put } = await scene(t, { env: { OZAN_HOST: OWN_ADDRESS }, resolve })
  const target = await counter(t)
  const cases: [string, RegExp][] = [
    [`http://127.0.0.1:${target.port}/v1`, /loopback/],
    ['http://127.1/v1', /loopback/],
    ['http://0x7f000001/v1', /loopback/],
    ['http://2130706433/v1', /loopback/],
    ['http://0177.0.0.1/v1', /loopback/],
    ['http://[::1]:8080/v1', /loopback/],
    ['http://[::ffff:127.0.0.1]/v1', /loopback/],
    ['https://[::ffff:7f00:1]/v1', /loopback/],
    ['https://10.0.0.1/v1', /private/],
    ['https://192.168.0.10/v1', /private/],
    ['https://169.254.169.254/latest', /metadata/],
    ['https://[fe80::1]/v1', /link-local/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://0.0.0.0/v1', /unspecified/],
    ['https://[::]/v1', /unspecified/],
    [`https://${OWN_ADDRESS}/v1`, /this server/],
    [`https://[::ffff:${OWN_ADDRESS}]/v1`, /this server/],
    ['https://internal.example.test/v1', /private address \(10\.20\.30\.40\)/],
    ['https://v6.internal.test/v1', /unique-local/],
    ['https://mixed.example.test/v1', /loopback/],
    ['https://metadata.example.test/v1', /metadata/],
  ]
  for (const provider of ['openai', 'deepgram']) {
    for (const [url, reason] of cases) {
      const res = await put(provider, url)
      t.equal(res.status, 422, `${provider} ${url}`)
      t.match(res.body.detail?.[0], { type: 'destination_refused', loc: ['body', 'fields', 'base_url'], msg: reason }, `${provider} ${url}`)
      t.notMatch(res.text, 'sk-guarded-key-0123456789', 'the key is not echoed')
    }
  }
  t.same((await a.request('GET', CREDENTIALS, { token: owner.token })).body, [], 'nothing was stored')
  t.equal(target.connections(), 0, 'no connection was attempted')
})

t.test("the operator's allowed ranges admit exactly their addresses; plain http only inside them", async (t) => {
  const resolve = dns({ 'internal.example.test': ['10.20.30.40'], 'public.example.test': ['93.184.216.36'] })
  const { put } = await scene(t, { env: { OZAN_ALLOW_PRIVATE_CIDRS: '10.0.0.0/8,127.0.0.0/8' }, resolve })
  const accepted = [
    'https://10.0.0.1/v1',
    'http://internal.example.test:11434/v1',
    'http://127.0.0.1:8000/v1',
    'http://0x7f000001/v1',
    'https://public.example.test/v1',
    'https://not-resolvable.example.test/v1',
  ]
  for (const url of accepted) t.equal((await put('openai', url)).status, 200, url)
  const refused: [string, string][] = [
    ['https://172.16.0.1/v1', 'destination_refused'],
    ['http://[::1]/v1', 'destination_refused'],
    ['https://169.254.169.254/', 'destination_refused'],
    ['http://public.example.test/v1', 'insecure_url'],
    ['http://not-resolvable.example.test/v1', 'insecure_url'],
  ]
  for (const [url, type] of refused) {
    const res = await put('deepgram', url)
    t.equal(res.status, 422, url)
    t.equal(res.body.detail?.[0]?.type, type, url)
  }
})

t.test('a name stored while it resolved publicly and rebound to loopback is refused at connect time: a 502, no retry, nothing sent', async (t) => {
  const table: Record<string, string[]> = { 'llm.rebind.test': ['93.184.216.34'] }
  const { a, owner, put } = await scene(t, { resolve: dns(table) })
  const target = await counter(t)
  t.equal((await put('openai', `https://llm.rebind.test:${target.port}/v1`)).status, 200, 'public when stored')
  table['llm.rebind.test'] = ['127.0.0.1']
  const send = await chat(a, owner.token)
  const res = await send('What time is it?')
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'upstream_error')
  t.notMatch(res.text, 'sk-guarded-key-0123456789')
  t.equal(target.connections(), 0, 'the loopback listener was never reached')
  t.notOk(
    a.logs.some((l) => l.includes('sk-guarded-key-0123456789')),
    'the key never reaches a log line',
  )
})

t.test("the operator's OZAN_OPENAI_BASE_URL on loopback works without an allow range; an organization may not point there", async (t) => {
  const llm = await startOpenAiStandIn({ apiKey: 'sk-platform-key-7890', firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => llm.close())
  const { a, owner, put } = await scene(t, { env: { OZAN_OPENAI_API_KEY: 'sk-platform-key-7890', OZAN_OPENAI_BASE_URL: llm.url } })
  const send = await chat(a, owner.token)
  const reply = await send('hello there')
  t.equal(reply.status, 200, reply.text)
  t.equal(reply.body.reply, 'You said: hello there')
  const res = await put('openai', llm.url)
  t.equal(res.status, 422)
  t.equal(res.body.detail[0].type, 'destination_refused')
  t.equal(llm.requests.length, 1, 'only the operator-configured request reached the stand-in')
})
