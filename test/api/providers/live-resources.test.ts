// GET /providers/{service_type}/{key}/resources (issue #22 item 1): the provider's live voices and
// models from its real listing endpoint (stand-ins speaking OpenAI's and Deepgram's), on the
// organization's credential else the platform's, cached briefly, never another organization's.
import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { DEFAULT_DEEPGRAM_MODELS } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { deepgramStandIn, httpOrigin, ids, openAiStandIn, providersApp, resources, storeCredential } from './fixtures.js'

const OPENAI_MODELS = [
  'gpt-4o-mini',
  'gpt-4.1',
  'whisper-1',
  'gpt-4o-mini-transcribe',
  'tts-1',
  'gpt-4o-mini-tts',
  'text-embedding-3-small',
  'omni-moderation-latest',
]

t.test("the platform's OpenAI key lists the server's models, cut to each stage", async (t) => {
  const s = await openAiStandIn(t, 'sk-platform-1111', OPENAI_MODELS)
  const a = await providersApp(t, { env: { OZAN_OPENAI_API_KEY: 'sk-platform-1111', OZAN_OPENAI_BASE_URL: s.url } })
  const owner = await newOwner(a)

  const llm = expectStatus(await resources(a, owner, 'llm', 'openai'), 200, 'llm')
  t.match(llm, { service_type: 'llm', key: 'openai', source: 'live', fallback_reason: null, credential: 'platform' })
  t.ok(Date.parse(llm.fetched_at) > 0, 'fetched_at is a time')
  t.same(ids(llm.models), ['gpt-4o-mini', 'gpt-4.1'], 'chat models only: no speech, embedding or moderation models')
  t.same(llm.voices, [])

  const stt = expectStatus(await resources(a, owner, 'stt', 'openai'), 200, 'stt')
  t.same(ids(stt.models), ['whisper-1', 'gpt-4o-mini-transcribe'])
  const tts = expectStatus(await resources(a, owner, 'tts', 'openai'), 200, 'tts')
  t.same(ids(tts.models), ['tts-1', 'gpt-4o-mini-tts'])
  t.ok(ids(tts.voices).includes('alloy'), 'OpenAI lists no voices: they come from the catalog')

  t.equal(s.modelListings.length, 1, 'one upstream listing served all three stages (cached)')
  t.equal(s.modelListings[0]!.authorization, 'Bearer sk-platform-1111')
})

t.test("an organization's stored credential is used before the platform's, and only for that organization", async (t) => {
  const platform = await openAiStandIn(t, 'sk-platform-2222', ['platform-model'])
  const own = await openAiStandIn(t, 'sk-org-a-3333', ['org-a-model'])
  const a = await providersApp(t, { env: { OZAN_OPENAI_API_KEY: 'sk-platform-2222', OZAN_OPENAI_BASE_URL: platform.url } })
  const orgA = await newOwner(a)
  const orgB = await newOwner(a)
  await storeCredential(a, orgA, 'openai', { api_key: 'sk-org-a-3333', base_url: own.url })

  const fromA = expectStatus(await resources(a, orgA, 'llm', 'openai'), 200, 'org A')
  t.match(fromA, { source: 'live', credential: 'organization' })
  t.same(ids(fromA.models), ['org-a-model'])
  const fromB = expectStatus(await resources(a, orgB, 'llm', 'openai'), 200, 'org B')
  t.match(fromB, { source: 'live', credential: 'platform' })
  t.same(ids(fromB.models), ['platform-model'], "org B never sees org A's listing (nor its cache entry)")
  t.same(
    own.modelListings.map((r) => r.authorization),
    ['Bearer sk-org-a-3333'],
    "org A's server heard org A's key once",
  )
  t.same(
    platform.modelListings.map((r) => r.authorization),
    ['Bearer sk-platform-2222'],
    'the platform server heard only the platform key',
  )
})

t.test("Deepgram's models and Aura voices come from GET /v1/models with the organization's Token key", async (t) => {
  const dg = await deepgramStandIn(t, 'dg-org-key-4444')
  const a = await providersApp(t)
  const owner = await newOwner(a)
  await storeCredential(a, owner, 'deepgram', { api_key: 'dg-org-key-4444', base_url: httpOrigin(dg) })

  const stt = expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'stt')
  t.match(stt, { source: 'live', fallback_reason: null, credential: 'organization', voices: [] })
  t.same(
    ids(stt.models),
    DEFAULT_DEEPGRAM_MODELS.stt.map((m) => m.canonical_name),
  )
  t.same(stt.models[0].languages, DEFAULT_DEEPGRAM_MODELS.stt[0]!.languages, 'languages as Deepgram lists them')
  const tts = expectStatus(await resources(a, owner, 'tts', 'deepgram'), 200, 'tts')
  t.same(
    ids(tts.voices),
    DEFAULT_DEEPGRAM_MODELS.tts.map((m) => m.canonical_name),
  )
  t.match(tts.voices[0], { id: 'aura-2-thalia-en', name: 'thalia' })
  t.same(
    dg.modelListings.map((r) => [r.authorization, r.status]),
    [['Token dg-org-key-4444', 200]],
    'one listing, with the Token header, for both stages',
  )
})

t.test('a cached listing is answered without asking again until its TTL passes; a replaced credential is asked at once', async (t) => {
  const dg = await deepgramStandIn(t, 'dg-key-one-5555')
  const clock = new ManualClock(Date.now())
  const a = await providersApp(t, { clock, env: { OZAN_PROVIDER_RESOURCES_TTL_S: '30' } })
  const owner = await newOwner(a)
  await storeCredential(a, owner, 'deepgram', { api_key: 'dg-key-one-5555', base_url: httpOrigin(dg) })

  const first = expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'first')
  const again = expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'again')
  t.equal(dg.modelListings.length, 1, 'the second request was served from the cache')
  t.equal(again.fetched_at, first.fetched_at, 'and says when the listing was fetched')

  const concurrent = await Promise.all([1, 2, 3].map(() => resources(a, owner, 'tts', 'deepgram')))
  t.ok(
    concurrent.every((r) => r.status === 200 && r.body.source === 'live'),
    'concurrent requests all live',
  )
  t.equal(dg.modelListings.length, 1, 'still one upstream request')

  clock.advance(30_001)
  expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'after the TTL')
  t.equal(dg.modelListings.length, 2, 'asked again once the entry expired')

  await storeCredential(a, owner, 'deepgram', { api_key: 'dg-key-two-6666', base_url: httpOrigin(dg) })
  const replaced = expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'after replacing the credential')
  t.equal(dg.modelListings.length, 3, 'the new credential is not answered from the old one’s listing')
  t.equal(dg.modelListings[2]!.authorization, 'Token dg-key-two-6666')
  t.match(replaced, { source: 'static', fallback_reason: 'credential_rejected' }, 'the stand-in refuses the new key: static, and why')
})

t.test("no credential: the static catalog, no request sent, and another organization's credential is never borrowed", async (t) => {
  const dg = await deepgramStandIn(t, 'dg-org-b-7777')
  const a = await providersApp(t)
  const orgA = await newOwner(a)
  const orgB = await newOwner(a)
  await storeCredential(a, orgB, 'deepgram', { api_key: 'dg-org-b-7777', base_url: httpOrigin(dg) })
  expectStatus(await resources(a, orgB, 'tts', 'deepgram'), 200, "org B's listing (now cached)")

  const fromA = expectStatus(await resources(a, orgA, 'tts', 'deepgram'), 200, 'org A')
  t.match(fromA, { source: 'static', fallback_reason: 'no_credential', credential: null, fetched_at: null })
  t.ok(ids(fromA.voices).includes('aura-2-thalia-en'), "the catalog's voices")
  t.notOk(ids(fromA.voices).includes('aura-2-celeste-es'), "nothing of org B's live listing")
  t.equal(dg.modelListings.length, 1, "org A's request sent nothing")

  const llm = expectStatus(await resources(a, orgA, 'llm', 'openai'), 200, 'llm without any OpenAI key')
  t.match(llm, { source: 'static', fallback_reason: 'no_credential', credential: null })
  t.same(ids(llm.models), ['gpt-4o-mini'], 'an open-ended list offers its default model')
})
