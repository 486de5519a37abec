// The stand-ins' model listings speak the real wire formats: the official SDKs' own list calls
// (Deepgram `manage.v1.models.list`, OpenAI `models.list`) read them. Each listing is logged with
// the key it came with, a wrong key is refused in the provider's error shape, and injected
// failures are used one per listing, apart from the stand-ins' other failure queues.
import { DefaultDeepgramClient } from '@deepgram/sdk'
import OpenAI from 'openai'
import t from 'tap'
import { DEFAULT_DEEPGRAM_MODELS, startDeepgramStandIn, startOpenAiStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

/** The HTTP status the SDK's error carries (200 when the call succeeded). */
const statusOf = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => 200,
    (e: { statusCode?: number }) => e.statusCode,
  )

t.test("Deepgram GET /v1/models: the SDK reads the stand-in's stt and tts records", async (t) => {
  const dg = await startDeepgramStandIn({ apiKey: 'dg-list-key' })
  t.teardown(() => dg.close())
  const origin = dg.url.replace(/^ws/, 'http')
  const client = new DefaultDeepgramClient({ apiKey: 'dg-list-key', baseUrl: origin, maxRetries: 0, logging: { silent: true } })
  const listed = await client.manage.v1.models.list({ include_outdated: true })
  t.same(
    listed.stt?.map((m) => m.canonical_name),
    DEFAULT_DEEPGRAM_MODELS.stt.map((m) => m.canonical_name),
  )
  t.match(listed.stt?.[0], { architecture: 'nova-3', streaming: true, batch: true, languages: ['en', 'en-US', 'de', 'es', 'fr', 'tr', 'multi'] })
  t.match(listed.tts?.[0], { canonical_name: 'aura-2-thalia-en', name: 'thalia', architecture: 'aura-2', metadata: { accent: 'American' } })
  t.match(dg.modelListings, [{ authorization: 'Token dg-list-key', authorized: true, status: 200, query: 'include_outdated=true' }])

  const wrong = new DefaultDeepgramClient({ apiKey: 'not-the-key', baseUrl: origin, maxRetries: 0, logging: { silent: true } })
  t.equal(await statusOf(wrong.manage.v1.models.list()), 401, 'a wrong key is 401')
  t.match(dg.modelListings[1], { authorized: false, status: 401 })

  dg.failModelListing({ kind: 'status', status: 503 })
  t.equal(await statusOf(client.manage.v1.models.list()), 503, 'the injected failure')
  t.same((await client.manage.v1.models.list()).tts?.length, DEFAULT_DEEPGRAM_MODELS.tts.length, 'one failure per listing')
  t.equal(dg.sessions.length, 0, 'no live session was opened by a listing')
})

t.test('OpenAI GET /v1/models: the SDK pages through the configured models; failures are their own queue', async (t) => {
  const s = await startOpenAiStandIn({ apiKey: 'sk-list', models: ['gpt-4o-mini', 'whisper-1'] })
  t.teardown(() => s.close())
  const client = new OpenAI({ apiKey: 'sk-list', baseURL: s.url, maxRetries: 0 })
  const ids: string[] = []
  for await (const m of client.models.list()) ids.push(m.id)
  t.same(ids, ['gpt-4o-mini', 'whisper-1'])
  t.match(s.modelListings, [{ authorization: 'Bearer sk-list', status: 200 }])

  s.fail({ kind: 'status', status: 500 })
  s.failModelListing({ kind: 'malformed' })
  const malformed = await fetch(`${s.url}/models`, { headers: { authorization: 'Bearer sk-list' } })
  t.equal(malformed.status, 200)
  t.match(await malformed.text(), /<html>/, 'malformed: 200 with something that is not a model list')
  t.equal(s.requests.length, 0, 'listings are not chat requests')
  const chat = await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: { status: number }) => e.status)
  t.equal(chat, 500, "the chat failure was still queued for chat: listings never consume the chat's failures")

  const wrong = await fetch(`${s.url}/models`, { headers: { authorization: 'Bearer nope' } })
  t.equal(wrong.status, 401)
  t.match(await wrong.json(), { error: { code: 'invalid_api_key' } })
})

t.test('a hung listing never answers, and closing the stand-in does not wait for it', async (t) => {
  const dg = await startDeepgramStandIn({ apiKey: 'k' })
  dg.failModelListing({ kind: 'hang' })
  const ac = new AbortController()
  const pending = fetch(`${dg.url.replace(/^ws/, 'http')}/v1/models`, { headers: { authorization: 'Token k' }, signal: ac.signal }).catch(() => 'aborted')
  const raced = await Promise.race([pending, new Promise((r) => setTimeout(() => r('still waiting'), 200))])
  t.equal(raced, 'still waiting')
  t.match(dg.modelListings, [{ failure: 'hang', status: 0 }])
  await dg.close()
  ac.abort()
  t.equal(await pending, 'aborted')
})
