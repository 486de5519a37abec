import t from 'tap'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { CHAT_AGENT } from './session-fixtures.js'

async function session(a: TestApp, token: string) {
  const wf = (await a.request('POST', '/api/v1/workflows', { token, body: CHAT_AGENT })).body
  t.equal((await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token })).status, 200)
  const started = await a.request('POST', `/api/v1/workflows/${wf.id}/sessions`, { token })
  t.equal(started.status, 201)
  return (text: string) => a.request('POST', `/api/v1/workflows/${wf.id}/sessions/${started.body.session_id}/messages`, { token, body: { text } })
}

t.test("an organization's stored openai credential drives its sessions through the real SDK", async (t) => {
  const llm = await startOpenAiStandIn({ apiKey: 'sk-org-key-123456', firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => llm.close())
  const a = await startTestApp({ env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' } })
  t.teardown(() => a.close())
  const owner = await a.register()
  const token = owner.access_token
  const send = await session(a, token)

  const before = await send('What time is it?')
  t.equal(before.status, 400)
  t.equal(before.body.error.code, 'provider_not_configured')

  const stored = await a.request('PUT', '/api/v1/credentials', {
    token,
    body: { provider: 'openai', fields: { api_key: 'sk-org-key-123456', base_url: llm.url } },
  })
  t.equal(stored.status, 200, stored.text)
  const reply = await send('What time is it?')
  t.equal(reply.status, 200, reply.text)
  t.equal(reply.body.reply, 'You said: What time is it?', 'the stand-in answered from what it received')
  t.equal(llm.requests.length, 1)
  t.match(llm.requests[0]!.messages.at(-1), { role: 'user', content: 'What time is it?' })
  t.notOk(
    a.logs.some((l) => l.includes('sk-org-key-123456')),
    'the key never reaches a log line',
  )
})

t.test('without a stored credential the platform key (OZAN_OPENAI_API_KEY) is used', async (t) => {
  const llm = await startOpenAiStandIn({ apiKey: 'sk-platform-key-7890', firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => llm.close())
  const a = await startTestApp({ env: { OZAN_OPENAI_API_KEY: 'sk-platform-key-7890', OZAN_OPENAI_BASE_URL: llm.url } })
  t.teardown(() => a.close())
  const owner = await a.register()
  const send = await session(a, owner.access_token)
  const reply = await send('hello there')
  t.equal(reply.body.reply, 'You said: hello there')
})

t.test('a wrong key is an upstream failure (502) that leaves the session unchanged', async (t) => {
  const llm = await startOpenAiStandIn({ apiKey: 'sk-right-key-00000', firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => llm.close())
  const a = await startTestApp({ env: { OZAN_OPENAI_API_KEY: 'sk-wrong-key-11111', OZAN_OPENAI_BASE_URL: llm.url } })
  t.teardown(() => a.close())
  const owner = await a.register()
  const send = await session(a, owner.access_token)
  const failed = await send('hello')
  t.equal(failed.status, 502)
  t.equal(failed.body.error.code, 'upstream_error')
  t.notMatch(failed.text, 'sk-wrong-key-11111')
})
