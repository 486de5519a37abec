// Issue 22 item 1: a provider is used "with the organization's credential when stored and the
// platform's otherwise". The platform's Deepgram key (OZAN_DEEPGRAM_API_KEY, at
// OZAN_DEEPGRAM_BASE_URL) serves the listing, calls and voice turns of organizations without a
// stored "deepgram" credential; a stored one comes first, for its organization only.
import t from 'tap'
import { DEFAULT_DEEPGRAM_MODELS } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { SAMPLE_RATE, encodeWav } from '../../../engine/audio/index.js'
import { concat, silence, skipWithoutEspeak, speak } from '../../helpers/speech.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { deepgramStandIn, httpOrigin, ids, PROVIDERS, providersApp, resources, storeCredential } from './fixtures.js'

t.test("the platform's Deepgram key lists models for an organization without its own, and GET /providers says it is there", async (t) => {
  const platform = await deepgramStandIn(t, 'dg-platform-1212')
  const own = await deepgramStandIn(t, 'dg-own-3434')
  const a = await providersApp(t, { env: { OZAN_DEEPGRAM_API_KEY: 'dg-platform-1212', OZAN_DEEPGRAM_BASE_URL: httpOrigin(platform) } })
  const orgA = await newOwner(a)
  const orgB = await newOwner(a)
  await storeCredential(a, orgA, 'deepgram', { api_key: 'dg-own-3434', base_url: httpOrigin(own) })

  const list = expectStatus(await a.request('GET', PROVIDERS, { token: orgB.token }), 200, 'providers') as {
    key: string
    service_type: string
    platform_credential: boolean
    organization_credential: boolean
  }[]
  t.match(
    list.filter((p) => p.key === 'deepgram'),
    [
      { service_type: 'stt', platform_credential: true, organization_credential: false },
      { service_type: 'tts', platform_credential: true, organization_credential: false },
    ],
  )

  const fromB = expectStatus(await resources(a, orgB, 'stt', 'deepgram'), 200, 'org B')
  t.match(fromB, { source: 'live', credential: 'platform' })
  t.same(
    ids(fromB.models),
    DEFAULT_DEEPGRAM_MODELS.stt.map((m) => m.canonical_name),
  )
  const fromA = expectStatus(await resources(a, orgA, 'stt', 'deepgram'), 200, 'org A')
  t.match(fromA, { source: 'live', credential: 'organization' }, 'a stored credential comes first')
  t.same(
    platform.modelListings.map((r) => r.authorization),
    ['Token dg-platform-1212'],
  )
  t.same(
    own.modelListings.map((r) => r.authorization),
    ['Token dg-own-3434'],
  )
})

const skip = await skipWithoutEspeak()

t.test("a voice turn of a Deepgram agent runs on the platform's key when the organization has none", { skip }, async (t) => {
  const platform = await deepgramStandIn(t, 'dg-platform-5656')
  const a = await providersApp(t, { env: { OZAN_DEEPGRAM_API_KEY: 'dg-platform-5656', OZAN_DEEPGRAM_BASE_URL: httpOrigin(platform) } })
  const owner = await newOwner(a)
  const send = (method: string, path: string, body?: unknown) => a.request(method, path, { token: owner.token, body })
  const W = '/api/v1/workflows'
  const agent = expectStatus(await send('POST', W, { name: 'Survey', template_id: 'survey-tr' }), 201, 'agent').id as string
  expectStatus(await send('PUT', `${W}/${agent}/config`, { language: 'tr-TR', stt: { provider: 'deepgram' } }), 200, 'config')
  expectStatus(await send('POST', `${W}/${agent}/publish`), 200, 'publish')
  const session = expectStatus(await send('POST', `${W}/${agent}/sessions`), 201, 'start').session_id as string
  platform.script('evet')
  const r = await a.request('POST', `${W}/${agent}/sessions/${session}/voice`, {
    token: owner.token,
    // Deepgram's stand-in hears speech, not silence: espeak-ng says the word it is scripted to transcribe.
    raw: encodeWav(concat(silence(200), await speak('evet', 'tr'), silence(200)), SAMPLE_RATE),
    headers: { 'content-type': 'audio/wav' },
  })
  t.equal(r.status, 200, r.status < 300 ? '' : r.text)
  t.equal(r.body.transcript, 'evet')
  t.equal(platform.sessions.length, 1, 'the platform’s Deepgram heard the turn')
  t.equal(platform.sessions[0]!.query.get('language'), 'tr-TR')
})

t.test('without any Deepgram key a Deepgram agent is 400 provider_not_configured, naming both ways to fix it', async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  const send = (method: string, path: string, body?: unknown) => a.request(method, path, { token: owner.token, body })
  const W = '/api/v1/workflows'
  const agent = expectStatus(await send('POST', W, { name: 'Survey', template_id: 'survey-tr' }), 201, 'agent').id as string
  expectStatus(await send('PUT', `${W}/${agent}/config`, { language: 'tr-TR', stt: { provider: 'deepgram' } }), 200, 'config')
  expectStatus(await send('POST', `${W}/${agent}/publish`), 200, 'publish')
  const session = expectStatus(await send('POST', `${W}/${agent}/sessions`), 201, 'start').session_id as string
  const r = await a.request('POST', `${W}/${agent}/sessions/${session}/voice`, {
    token: owner.token,
    raw: encodeWav(new Int16Array(SAMPLE_RATE / 2), SAMPLE_RATE),
    headers: { 'content-type': 'audio/wav' },
  })
  t.equal(r.status, 400)
  t.equal(r.body.error.code, 'provider_not_configured')
  t.match(r.body.error.message, /"deepgram" credential.*OZAN_DEEPGRAM_API_KEY/)
})
