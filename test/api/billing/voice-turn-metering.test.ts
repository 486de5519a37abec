import t from 'tap'
import { SAMPLE_RATE, encodeWav } from '../../../engine/audio/index.js'
import { startTranscriptionStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { spokenCharacters } from '../../../api/sessions/voice.js'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { billingScene } from './billing-fixtures.js'

// Issue 22: "every session and call records what it actually used (audio seconds into STT, …,
// characters synthesized …)". A text session's spoken turns (POST …/sessions/{id}/voice) are
// metered like a call's: the audio sent to the recognizer and the characters of the reply sent to
// TTS, as synthesize() sends them (numbers read as words).

const KEY = 'sk-metered-voice-7781'
const W = '/api/v1/workflows'
const skip = await skipWithoutEspeak()

t.test('a spoken turn’s audio into STT and its reply’s characters into TTS are in the settled cost', { skip }, async (t) => {
  const stt = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => stt.close())
  const s = await billingScene(t, { OZAN_BILLING: 'on', OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  expectStatus(await s.send('PUT', '/api/v1/credentials', { body: { provider: 'openai', fields: { api_key: KEY, base_url: stt.url } } }), 200, 'credential')
  const agent = expectStatus(await s.send('POST', W, { body: { name: 'Survey', template_id: 'survey-tr' } }), 201, 'agent').id as string
  expectStatus(await s.send('PUT', `${W}/${agent}/config`, { body: { language: 'tr-TR', stt: { provider: 'openai' } } }), 200, 'config')
  expectStatus(await s.send('POST', `${W}/${agent}/publish`), 200, 'publish')
  const session = expectStatus(await s.send('POST', `${W}/${agent}/sessions`), 201, 'start').session_id as string

  stt.script('evet')
  const oneSecond = encodeWav(new Int16Array(SAMPLE_RATE), SAMPLE_RATE)
  const turn = await s.send('POST', `${W}/${agent}/sessions/${session}/voice`, { raw: oneSecond, headers: { 'content-type': 'audio/wav' } })
  t.equal(turn.status, 200, turn.status < 300 ? '' : turn.text)
  t.ok(turn.body.messages.length > 0, 'the agent answered, and its answer was spoken')
  stt.script('evet')
  const typed = await s.send('POST', `${W}/${agent}/sessions/${session}/messages`, { body: { text: '5' } })
  t.equal(typed.status, 200, 'a typed turn is not spoken, so its reply adds no characters')
  expectStatus(await s.send('POST', `/api/v1/calls/${session}/control`, { body: { action: 'end' } }), 202, 'end')

  const report = s.events.find((e) => e.type === 'session.completed' && e.data['session_uuid'] === session)
  t.ok(report, 'session.completed was published')
  const items = (report!.data['cost'] as { items: { service_type: string; provider: string; unit: string; base_quantity: number }[] }).items
  t.match(
    items.find((i) => i.service_type === 'stt'),
    { provider: 'openai', unit: 'minute', base_quantity: 1000 },
    'one second of audio went to the recognizer',
  )
  t.match(
    items.find((i) => i.service_type === 'tts'),
    { provider: 'espeak', unit: '1k_characters', base_quantity: spokenCharacters(turn.body.messages, 'tr-TR') },
    'the spoken reply’s characters, as TTS was sent them',
  )
  const usage = s.a.db.prepare('SELECT stt_audio_ms, tts_characters FROM billing_usage WHERE session_id = ?').get(session) as Record<string, number>
  t.same(usage, { stt_audio_ms: 1000, tts_characters: spokenCharacters(turn.body.messages, 'tr-TR') }, 'recorded for GET /billing/usage')
})

t.test('the counted characters are the speech text: numbers are read as words', async (t) => {
  t.equal(spokenCharacters(['Toplam 1.250,50 TL.'], 'tr-TR'), 'Toplam bin iki yüz elli lira elli kuruş.'.length)
  t.equal(spokenCharacters(['  ', 'Hi.'], 'en-US'), 3, 'blank lines are not sent')
})
