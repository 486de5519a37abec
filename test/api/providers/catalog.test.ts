// GET /providers (issue #22 item 1): every STT, LLM and TTS provider the engine implements, with
// its capabilities and whether a credential is there; both routes RBAC-checked (agents:read), an
// unknown service type or provider 404, a malformed one 422.
import t from 'tap'
import { PROVIDERS as ENGINE_PROVIDERS } from '../../../engine/catalog/index.js'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { PROVIDERS, openAiStandIn, providersApp, resources, resourcesPath, storeCredential } from './fixtures.js'

t.test('every provider of the engine catalog is listed with its capabilities and credential state', async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  const list = expectStatus(await a.request('GET', PROVIDERS, { token: owner.token }), 200, 'list')
  t.same(
    list.map((p: { service_type: string; key: string }) => `${p.service_type}:${p.key}`),
    ENGINE_PROVIDERS.map((p) => `${p.service_type}:${p.key}`),
    'the same providers, in the same order, as the catalog agent configs are validated against',
  )
  const byId = (id: string) => list.find((p: { service_type: string; key: string }) => `${p.service_type}:${p.key}` === id)
  t.match(byId('stt:deepgram'), {
    name: 'Deepgram',
    credential_provider: 'deepgram',
    requires_credential: true,
    organization_credential: false,
    platform_credential: false,
    capabilities: { streaming: true, custom_models: false, live_resources: true },
    default_model: 'nova-3',
  })
  t.ok(byId('stt:deepgram').capabilities.languages.includes('tr'))
  t.match(byId('stt:openai'), { capabilities: { streaming: false, custom_models: true } }, 'transcription is one request per utterance')
  t.match(byId('llm:openai'), { capabilities: { streaming: true, languages: [] }, platform_credential: false })
  t.match(byId('tts:espeak'), { credential_provider: null, requires_credential: false, organization_credential: false, default_voice: 'en-us' })
})

t.test("organization_credential follows the caller's organization; platform_credential the operator's key", async (t) => {
  const s = await openAiStandIn(t, 'sk-platform-abcd')
  const a = await providersApp(t, { env: { OZAN_OPENAI_API_KEY: 'sk-platform-abcd', OZAN_OPENAI_BASE_URL: s.url } })
  const orgA = await newOwner(a)
  const orgB = await newOwner(a)
  await storeCredential(a, orgA, 'deepgram', { api_key: 'dg-stored-0123456789' })
  const flags = async (token: string) =>
    Object.fromEntries(
      expectStatus(await a.request('GET', PROVIDERS, { token }), 200, 'list').map(
        (p: { service_type: string; key: string; organization_credential: boolean; platform_credential: boolean }) => [
          `${p.service_type}:${p.key}`,
          [p.organization_credential, p.platform_credential],
        ],
      ),
    )
  const ofA = await flags(orgA.token)
  t.same(ofA['tts:deepgram'], [true, false], 'org A stored a Deepgram credential')
  t.same(ofA['llm:openai'], [false, true], 'the platform has an OpenAI key')
  t.same((await flags(orgB.token))['tts:deepgram'], [false, false], "org B does not see org A's credential")
  t.notMatch(JSON.stringify(await a.request('GET', PROVIDERS, { token: orgA.token })), /dg-stored|sk-platform/, 'no secret in the listing')
})

t.test('unknown service types and providers are 404 not_found; malformed ones 422', async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  for (const [type, key] of [
    ['tts', 'acme'],
    ['llm', 'deepgram'],
    ['vad', 'silero'],
    ['stt', 'espeak'],
  ]) {
    const r = await resources(a, owner, type!, key!)
    t.equal(r.status, 404, `${type}/${key}`)
    t.equal(r.body.error.code, 'not_found')
    t.equal(r.body.error.request_id, r.headers.get('x-request-id'))
  }
  const unknownType = await resources(a, owner, 'video', 'deepgram')
  const unknownKey = await resources(a, owner, 'tts', 'nobody')
  const bare = (r: { text: string; body: { error: { request_id: string } } }) => r.text.replace(r.body.error.request_id, '')
  t.equal(bare(unknownType), bare(unknownKey), 'the 404 names neither the type nor the key')

  for (const [type, key, loc] of [
    ['TTS', 'deepgram', 'service_type'],
    ['tts', 'Deep%20gram', 'key'],
    ['tts', 'x'.repeat(65), 'key'],
    ['s'.repeat(33), 'openai', 'service_type'],
  ]) {
    const r = await a.request('GET', resourcesPath(type!, key!), { token: owner.token })
    t.equal(r.status, 422, `${type}/${key!.slice(0, 20)}`)
    t.match(r.body.detail, [{ loc: ['path', loc] }])
  }
})

t.test('both routes need authentication and agents:read', async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  for (const path of [PROVIDERS, resourcesPath('tts', 'espeak')]) {
    const anonymous = await a.request('GET', path)
    t.equal(anonymous.status, 401, `${path} anonymous`)
    t.equal(anonymous.body.error.code, 'authentication_required')
  }
  const reader = await createKey(a, owner, ['workflow:read'])
  const other = await createKey(a, owner, ['knowledge_base:read'])
  t.equal((await a.request('GET', PROVIDERS, { apiKey: reader.key })).status, 200, 'workflow:read lists providers')
  t.equal((await a.request('GET', resourcesPath('tts', 'espeak'), { apiKey: reader.key })).status, 200, 'and their resources')
  for (const path of [PROVIDERS, resourcesPath('tts', 'espeak')]) {
    const refused = await a.request('GET', path, { apiKey: other.key })
    t.equal(refused.status, 403, `${path} without agents:read`)
    t.equal(refused.body.error.code, 'permission_denied')
  }
  const viewer = await addMember(a, owner, 4)
  t.equal((await a.request('GET', PROVIDERS, { token: viewer.token })).status, 200, 'the viewer role may look')
})

t.test('the OpenAPI document names the schemas as the spec does', async (t) => {
  const a = await providersApp(t)
  const doc = a.app.openapi() as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>>
    components: { schemas: Record<string, unknown> }
  }
  const list = doc.paths['/api/v1/providers']!.get!.responses['200']!.content!['application/json']!.schema
  t.match(list, { type: 'array', items: { $ref: '#/components/schemas/ProviderResponse' } })
  const one = doc.paths['/api/v1/providers/{service_type}/{key}/resources']!.get!
  t.match(one.responses['200']!.content!['application/json']!.schema, { $ref: '#/components/schemas/ProviderResourcesResponse' })
  t.ok(one.responses['404'], '404 documented')
  t.ok(one.responses['422'], '422 documented')
  t.ok(doc.components.schemas.ProviderResponse && doc.components.schemas.ProviderResourcesResponse)
})

t.test('agent config validation and the static resources come from one catalog: each static voice and model is accepted, others refused', async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  const created = expectStatus(await a.request('POST', '/api/v1/workflows', { token: owner.token, body: { name: 'Catalog check' } }), 201, 'create agent')
  const putConfig = (config: Record<string, unknown>) => a.request('PUT', `/api/v1/workflows/${created.id}/config`, { token: owner.token, body: config })
  const list = expectStatus<{ service_type: string; key: string; capabilities: { custom_models: boolean; custom_voices: boolean } }[]>(
    await a.request('GET', PROVIDERS, { token: owner.token }),
    200,
    'list',
  )
  for (const p of list) {
    // No credentials here: every provider but espeak answers its static resources.
    const r = expectStatus(await resources(a, owner, p.service_type, p.key), 200, `${p.service_type}/${p.key}`)
    const stage = (extra: Record<string, unknown>) => ({ [p.service_type]: { provider: p.key, ...extra } })
    for (const m of r.models) t.equal((await putConfig(stage({ model: m.id }))).status, 200, `${p.service_type}/${p.key} model ${m.id} is accepted`)
    if (p.service_type === 'tts' && r.source === 'static')
      for (const v of r.voices) t.equal((await putConfig(stage({ voice: v.id }))).status, 200, `${p.key} voice ${v.id} is accepted`)
    if (!p.capabilities.custom_models) {
      const refused = await putConfig(stage({ model: 'no-such-model' }))
      t.equal(refused.status, 422, `${p.service_type}/${p.key}: a model outside its closed list is refused`)
      t.match(refused.body.detail, [{ loc: ['body', p.service_type, 'model'] }])
    }
    if (p.service_type === 'tts' && !p.capabilities.custom_voices) {
      const refused = await putConfig(stage({ voice: 'no-such-voice' }))
      t.equal(refused.status, 422, `${p.key}: a voice outside its closed list is refused`)
    }
  }
})
