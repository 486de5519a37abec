// espeak-ng's voices are listed live from the binary on this machine (`espeak-ng --voices`); each
// listed id is one the engine's espeak provider accepts. A missing binary falls back to the
// catalog (not_installed). In CI a missing espeak-ng fails this file instead of skipping it.
import t from 'tap'
import { ManualClock, createLogger } from '../../../core/index.js'
import { EspeakTts } from '../../../engine/pipeline/providers/tts/index.js'
import { ProviderConnections } from '../../../engine/pipeline/providers/connections.js'
import { ProviderService } from '../../../api/providers/index.js'
import type { Principal } from '../../../api/security/principal.js'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { ids, providersApp, resources } from './fixtures.js'

const skip = await skipWithoutEspeak()

t.test('the installed voices are listed live, and the engine accepts every one of them', { skip }, async (t) => {
  const a = await providersApp(t)
  const owner = await newOwner(a)
  const r = expectStatus(await resources(a, owner, 'tts', 'espeak'), 200, 'espeak')
  t.match(r, { source: 'live', fallback_reason: null, credential: null, models: [] })
  const voices = ids(r.voices)
  t.ok(voices.length > 50, `espeak-ng ships dozens of voices (${voices.length})`)
  for (const v of ['en-us', 'tr', 'de']) t.ok(voices.includes(v), `lists ${v}`)
  t.match(
    r.voices.find((v: { id: string }) => v.id === 'tr'),
    { name: 'Turkish', languages: ['tr'] },
  )
  t.equal(new Set(voices).size, voices.length, 'no id twice')
  const engine = new EspeakTts({})
  const refused: string[] = []
  for (const v of voices) await engine.resolveVoice({ voice: v }).catch(() => refused.push(v))
  t.same(refused, [], 'every listed voice passes the engine’s whitelist')
})

const principal = { organizationId: '00000000-0000-4000-8000-000000000001' } as Principal

t.test('a missing binary falls back to the catalog voices (not_installed)', async (t) => {
  const organizationConnections = new ProviderConnections({ guard: {} })
  t.teardown(() => organizationConnections.close())
  const service = new ProviderService({
    config: { openaiApiKey: null, deepgramApiKey: null },
    openAiAccess: () => undefined,
    deepgramAccess: () => undefined,
    credentials: { reveal: () => null },
    storedProviders: () => [],
    organizationConnections,
    clock: new ManualClock(0),
    logger: createLogger('silent'),
    options: { espeakBinary: '/nonexistent/espeak-ng' },
  })
  const r = await service.resources(principal, 'tts', 'espeak')
  t.match(r, { source: 'static', fallback_reason: 'not_installed', credential: null, fetched_at: null })
  t.same(ids(r.voices), ['en-us', 'en-gb', 'tr', 'de', 'fr', 'es'])
})
