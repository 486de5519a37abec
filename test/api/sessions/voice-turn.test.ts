import t, { type Test } from 'tap'
import { startDeepgramStandIn, startTranscriptionStandIn, type TranscriptionStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { SAMPLE_RATE, encodeWav, parseWav, pcmToBytes, resample } from '../../../engine/audio/index.js'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { concat, silence, skipWithoutEspeak, speak } from '../../helpers/speech.js'
import { SILENT_ENDING } from '../../helpers/audit-recipes.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { lineGraph } from './session-fixtures.js'

// POST …/sessions/{id}/voice over HTTP against the real app: espeak-ng speech in, the OpenAI
// transcription stand-in as the recognizer (it answers scripted text), the deterministic survey
// agent (no LLM), espeak-ng TTS out. In CI a missing espeak-ng fails the file (skipWithoutEspeak).

const KEY = 'sk-voice-turn-test-5521'
const W = '/api/v1/workflows'
const skip = await skipWithoutEspeak()

interface Voice {
  a: TestApp
  owner: Actor
  stt: TranscriptionStandIn
  /** A published survey-tr agent whose stt is openai and tts espeak (unless `config` says else). */
  workflowId: string
  /** A started session of it, waiting for consent. */
  sessionPath: string
  post(audio: Buffer, contentType: string, path?: string): Promise<Reply>
  text(text: string): Promise<Reply>
  get(path: string): Promise<Reply>
}

async function storeOpenAi(a: TestApp, owner: Actor, baseUrl: string, apiKey = KEY): Promise<void> {
  expectStatus(
    await a.request('PUT', '/api/v1/credentials', { token: owner.token, body: { provider: 'openai', fields: { api_key: apiKey, base_url: baseUrl } } }),
    200,
    'store openai credential',
  )
}

async function surveyAgent(a: TestApp, owner: Actor, config: Record<string, unknown>): Promise<string> {
  const id = expectStatus(await a.request('POST', W, { token: owner.token, body: { name: 'Voice survey', template_id: 'survey-tr' } }), 201, 'create agent')
    .id as string
  expectStatus(await a.request('PUT', `${W}/${id}/config`, { token: owner.token, body: config }), 200, 'put config')
  expectStatus(await a.request('POST', `${W}/${id}/publish`, { token: owner.token }), 200, 'publish')
  return id
}

async function voice(t: Test, o: { env?: Record<string, string>; config?: Record<string, unknown>; credential?: boolean } = {}): Promise<Voice> {
  const stt = await startTranscriptionStandIn({ apiKey: KEY })
  t.teardown(() => stt.close())
  const a = await startTestApp({ env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', ...o.env } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  if (o.credential !== false) await storeOpenAi(a, owner, stt.url)
  const workflowId = await surveyAgent(a, owner, o.config ?? { language: 'tr-TR', stt: { provider: 'openai' } })
  const started = expectStatus(await a.request('POST', `${W}/${workflowId}/sessions`, { token: owner.token }), 201, 'start session')
  const sessionPath = `${W}/${workflowId}/sessions/${started.session_id}`
  return {
    a,
    owner,
    stt,
    workflowId,
    sessionPath,
    post: (audio, contentType, path = sessionPath) =>
      a.request('POST', `${path}/voice`, { token: owner.token, raw: audio, headers: { 'content-type': contentType } }),
    text: (text) => a.request('POST', `${sessionPath}/messages`, { token: owner.token, body: { text } }),
    get: (path) => a.request('GET', path, { token: owner.token }),
  }
}

let spoken: Int16Array | undefined
/** "evet" spoken by espeak-ng, 16 kHz mono, with a little silence around it. */
async function evet(): Promise<Int16Array> {
  spoken ??= concat(silence(200), await speak('evet', 'tr'), silence(200))
  return spoken
}

/** The body as a failure message only: a success carries seconds of base64 audio. */
const why = (r: Reply) => (r.status < 300 ? `${r.status}` : r.text)
const codeOf = (r: Reply) => ({ status: r.status, code: r.body?.error?.code as string | undefined })
const detailTypes = (r: Reply) => (r.body?.detail ?? []).map((d: { type: string }) => d.type) as string[]

t.test('a 22.05 kHz stereo WAV is heard, the turn runs, and the reply comes back as text and a 16 kHz WAV', { skip }, async (t) => {
  const v = await voice(t)
  const pcm = await evet()
  const at22k = resample(pcm, SAMPLE_RATE, 22050)
  const stereo = new Int16Array(at22k.length * 2)
  for (let i = 0; i < at22k.length; i++) stereo[i * 2] = stereo[i * 2 + 1] = at22k[i]!
  v.stt.script('evet')

  const r = await v.post(encodeWav(stereo, 22050, 2), 'audio/wav')
  t.equal(r.status, 200, why(r))
  t.equal(r.body.transcript, 'evet')
  t.equal(r.body.status, 'active')
  t.equal(r.body.variables.consent, true, 'the survey took the transcript as its yes')
  t.ok(r.body.messages.length > 0, 'the agent answered')
  t.equal(r.body.reply, r.body.messages.join(' '))
  t.match(r.body.reply, /puan/, 'the survey moved on to the rating question')

  // The recognizer got the whole utterance, downmixed and resampled to 16 kHz.
  t.equal(v.stt.requests.length, 1)
  const heard = v.stt.requests[0]!
  t.equal(heard.model, 'gpt-4o-mini-transcribe')
  t.equal(heard.language, 'tr')
  t.ok(Math.abs(heard.audioMs! - (pcm.length * 1000) / SAMPLE_RATE) < 20, `the recognizer heard ${heard.audioMs} ms`)

  const audio = r.body.audio
  t.match(audio, { format: 'wav', sample_rate: 16000, channels: 1 })
  const wav = parseWav(Buffer.from(audio.base64, 'base64'))
  t.equal(wav.sampleRate, 16000)
  t.equal(wav.channels, 1)
  const ms = (wav.samples.length * 1000) / 16000
  t.equal(audio.duration_ms, Math.round(ms))
  // A long Turkish question at 175 words per minute: seconds, not milliseconds and not minutes.
  t.ok(ms > 2000 && ms < 60_000, `reply audio lasts ${ms} ms`)
  t.ok(
    wav.samples.some((s) => Math.abs(s) > 1000),
    'the reply audio is not silence',
  )

  // Recorded as the caller's message, like POST …/messages.
  const events = expectStatus(await v.get(`${v.sessionPath}/events`), 200, 'events') as { kind: string; data: { text?: string } }[]
  t.ok(
    events.some((e) => e.kind === 'user_message' && e.data.text === 'evet'),
    'the transcript is the user message',
  )
  const detail = expectStatus(await v.get(v.sessionPath), 200, 'detail')
  t.equal(detail.turn_count, 2)
})

t.test('audio/pcm;rate=16000 works, and voice and text turns of one session are serialized', { skip }, async (t) => {
  const v = await voice(t)
  const pcm = await evet()
  v.stt.script({ text: 'evet', latencyMs: 300 })
  const [spokenTurn, typed] = await Promise.all([
    v.post(pcmToBytes(pcm), 'audio/pcm; rate=16000'),
    new Promise<Reply>((r) => setTimeout(() => r(v.text('5')), 50)),
  ])
  t.equal(spokenTurn.status, 200, why(spokenTurn))
  t.equal(spokenTurn.body.transcript, 'evet')
  t.equal(typed.status, 200, why(typed))
  t.equal(typed.body.variables.rating, 5, 'the typed rating ran after the spoken consent')
  const events = expectStatus(await v.get(`${v.sessionPath}/events`), 200, 'events') as { kind: string; data: { text?: string } }[]
  t.same(
    events.filter((e) => e.kind === 'user_message').map((e) => e.data.text),
    ['evet', '5'],
  )
})

t.test('a deepgram agent streams the audio to the live API at the stored credential’s base_url', { skip }, async (t) => {
  const dg = await startDeepgramStandIn({ apiKey: 'dg-voice-test', finalLatencyMs: 10 })
  t.teardown(() => dg.close())
  const v = await voice(t, { config: { language: 'tr-TR', stt: { provider: 'deepgram' } } })
  // Stored as http(s), as the credential catalog takes it; the socket goes to the same host over ws(s).
  const baseUrl = dg.url.replace(/^ws/, 'http')
  expectStatus(
    await v.a.request('PUT', '/api/v1/credentials', {
      token: v.owner.token,
      body: { provider: 'deepgram', fields: { api_key: 'dg-voice-test', base_url: baseUrl } },
    }),
    200,
    'store deepgram credential',
  )
  dg.script('evet')
  const r = await v.post(encodeWav(await evet(), SAMPLE_RATE), 'audio/wav')
  t.equal(r.status, 200, why(r))
  t.equal(r.body.transcript, 'evet')
  t.equal(r.body.variables.consent, true)
  t.equal(dg.sessions.length, 1)
  t.equal(dg.sessions[0]!.query.get('language'), 'tr-TR')
  t.equal(v.stt.requests.length, 0, 'the openai recognizer was not used')
})

t.test('a turn the agent answers with silence has audio null (no TTS runs)', async (t) => {
  const v = await voice(t)
  const id = expectStatus(await v.a.request('POST', W, { token: v.owner.token, body: { name: 'Silent', definition: SILENT_ENDING } }), 201, 'create')
    .id as string
  expectStatus(
    await v.a.request('PUT', `${W}/${id}/config`, {
      token: v.owner.token,
      body: { language: 'tr-TR', stt: { provider: 'openai' }, tts: { provider: 'deepgram' } },
    }),
    200,
    'config',
  )
  expectStatus(await v.a.request('POST', `${W}/${id}/publish`, { token: v.owner.token }), 200, 'publish')
  const started = expectStatus(await v.a.request('POST', `${W}/${id}/sessions`, { token: v.owner.token }), 201, 'start')
  t.same(started.messages, ['Devam edelim mi?'])
  v.stt.script('evet')
  // The tts provider is deepgram with no credential: resolved up front, so this is 400 and nothing runs.
  const unconfigured = await v.post(encodeWav(new Int16Array(3200), SAMPLE_RATE), 'audio/wav', `${W}/${id}/sessions/${started.session_id}`)
  t.same(codeOf(unconfigured), { status: 400, code: 'provider_not_configured' })
  expectStatus(await v.a.request('PUT', `${W}/${id}/config`, { token: v.owner.token, body: { language: 'tr-TR', stt: { provider: 'openai' } } }), 200, 'config')
  expectStatus(await v.a.request('POST', `${W}/${id}/publish`, { token: v.owner.token }), 200, 'publish')
  const again = expectStatus(await v.a.request('POST', `${W}/${id}/sessions`, { token: v.owner.token }), 201, 'start')
  const r = await v.post(encodeWav(new Int16Array(3200), SAMPLE_RATE), 'audio/wav', `${W}/${id}/sessions/${again.session_id}`)
  t.equal(r.status, 200, why(r))
  t.match(r.body, { transcript: 'evet', messages: [], reply: '', audio: null, ended: true, status: 'completed', variables: { consent: true } })
})

t.test('unusable audio is 415 or 422 and records nothing', { skip }, async (t) => {
  const v = await voice(t)
  const pcm = await evet()
  const cases: [string, Buffer, string, number, string][] = [
    ['wrong content type', Buffer.from('evet'), 'text/plain', 415, 'unsupported_media_type'],
    ['JSON', Buffer.from('{"text":"evet"}'), 'application/json', 415, 'unsupported_media_type'],
    ['not a WAV', Buffer.from('this is not a wav file at all'), 'audio/wav', 422, 'audio_invalid'],
    [
      '8-bit WAV',
      Buffer.concat([encodeWav(pcm.subarray(0, 100), 16000).subarray(0, 34), Buffer.from([8, 0]), encodeWav(pcm.subarray(0, 100), 16000).subarray(36)]),
      'audio/wav',
      422,
      'audio_invalid',
    ],
    ['odd PCM', Buffer.alloc(3201), 'audio/pcm;rate=16000', 422, 'audio_invalid'],
    ['PCM without a rate', pcmToBytes(pcm), 'audio/pcm', 422, 'audio_format'],
    ['PCM at 8 kHz', pcmToBytes(pcm), 'audio/pcm;rate=8000', 422, 'audio_format'],
    ['empty WAV', encodeWav(new Int16Array(0), 16000), 'audio/wav', 422, 'audio_empty'],
    ['61 s', pcmToBytes(new Int16Array(61 * SAMPLE_RATE)), 'audio/pcm;rate=16000', 422, 'audio_too_long'],
    ['61 s WAV at 8 kHz', encodeWav(new Int16Array(61 * 8000), 8000), 'audio/wav', 422, 'audio_too_long'],
  ]
  for (const [what, body, type, status, code] of cases) {
    const r = await v.post(body, type)
    t.equal(r.status, status, `${what}: ${r.text}`)
    if (status === 422) t.same(detailTypes(r), [code], what)
    else t.equal(r.body.error.code, code, what)
  }
  const absent = await v.a.request('POST', `${v.sessionPath}/voice`, { token: v.owner.token })
  t.equal(absent.status, 422, 'no body')
  t.same(detailTypes(absent), ['missing'])

  v.stt.script('')
  const quiet = await v.post(encodeWav(silence(500), 16000), 'audio/wav')
  t.equal(quiet.status, 422, quiet.text)
  t.same(detailTypes(quiet), ['no_speech'])

  t.equal(v.stt.requests.length, 1, 'only the silence reached the recognizer')
  const detail = expectStatus(await v.get(v.sessionPath), 200, 'detail')
  t.equal(detail.turn_count, 1, 'no turn was recorded')
  t.equal(detail.status, 'active')
})

t.test('a body over OZAN_UPLOAD_LIMIT_BYTES is 413 file_too_large, and the connection stays usable', { skip }, async (t) => {
  const v = await voice(t, { env: { OZAN_UPLOAD_LIMIT_BYTES: '4096' } })
  const big = await v.post(pcmToBytes(new Int16Array(16_000)), 'audio/pcm;rate=16000')
  t.same(codeOf(big), { status: 413, code: 'file_too_large' }, why(big))
  // Streamed without a length: refused once the limit is crossed.
  const res = await fetch(v.a.url + `${v.sessionPath}/voice`, {
    method: 'POST',
    headers: { authorization: `Bearer ${v.owner.token}`, 'content-type': 'audio/pcm;rate=16000' },
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < 8; i++) c.enqueue(new Uint8Array(2048))
        c.close()
      },
    }),
    duplex: 'half',
  } as RequestInit)
  t.equal(res.status, 413)
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'file_too_large')
  v.stt.script('evet')
  const small = await v.post(pcmToBytes((await evet()).subarray(0, 2000)), 'audio/pcm;rate=16000')
  t.equal(small.status, 200, why(small))
  t.equal(v.stt.requests.length, 1)
})

t.test('missing speech credentials are provider_not_configured, naming what to store', { skip }, async (t) => {
  const v = await voice(t, { credential: false })
  const pcm = encodeWav(await evet(), SAMPLE_RATE)
  const r = await v.post(pcm, 'audio/wav')
  t.same(codeOf(r), { status: 400, code: 'provider_not_configured' }, r.text)
  t.match(r.body.error.message, /speech-to-text provider is "openai"/)

  const dg = await surveyAgent(v.a, v.owner, { language: 'tr-TR', stt: { provider: 'deepgram' } })
  const started = expectStatus(await v.a.request('POST', `${W}/${dg}/sessions`, { token: v.owner.token }), 201, 'start')
  const r2 = await v.post(pcm, 'audio/wav', `${W}/${dg}/sessions/${started.session_id}`)
  t.same(codeOf(r2), { status: 400, code: 'provider_not_configured' })
  t.match(r2.body.error.message, /"deepgram" credential/)

  await storeOpenAi(v.a, v.owner, v.stt.url)
  const tts = await surveyAgent(v.a, v.owner, { language: 'tr-TR', stt: { provider: 'openai' }, tts: { provider: 'deepgram' } })
  const s3 = expectStatus(await v.a.request('POST', `${W}/${tts}/sessions`, { token: v.owner.token }), 201, 'start')
  const r3 = await v.post(pcm, 'audio/wav', `${W}/${tts}/sessions/${s3.session_id}`)
  t.same(codeOf(r3), { status: 400, code: 'provider_not_configured' })
  t.match(r3.body.error.message, /text-to-speech provider is "deepgram"/)
  t.equal(v.stt.requests.length, 0, 'nothing was sent to a recognizer')
})

t.test('an ended session is 409 session_ended; another organization’s session is 404', { skip }, async (t) => {
  const v = await voice(t)
  const pcm = encodeWav(await evet(), SAMPLE_RATE)
  const id = expectStatus(await v.a.request('POST', W, { token: v.owner.token, body: { name: 'One line', definition: lineGraph('Bye.') } }), 201, 'create')
    .id as string
  expectStatus(await v.a.request('POST', `${W}/${id}/publish`, { token: v.owner.token }), 200, 'publish')
  const ended = expectStatus(await v.a.request('POST', `${W}/${id}/sessions`, { token: v.owner.token }), 201, 'start')
  t.equal(ended.ended, true)
  t.same(codeOf(await v.post(pcm, 'audio/wav', `${W}/${id}/sessions/${ended.session_id}`)), { status: 409, code: 'session_ended' })

  const stranger = await newOwner(v.a)
  const theirs = await v.a.request('POST', `${v.sessionPath}/voice`, { token: stranger.token, raw: pcm, headers: { 'content-type': 'audio/wav' } })
  t.same(codeOf(theirs), { status: 404, code: 'not_found' })
  t.equal(v.stt.requests.length, 0)
})

t.test('recognizer and voice failures are 503 / 502; a failed recognition records nothing', { skip }, async (t) => {
  const v = await voice(t)
  const pcm = encodeWav(await evet(), SAMPLE_RATE)
  v.stt.fail({ kind: 'status', status: 500 })
  const down = await v.post(pcm, 'audio/wav')
  t.same(codeOf(down), { status: 503, code: 'service_unavailable' }, down.text)
  t.notMatch(down.text, /Injected failure/, 'the provider’s text is not passed on')

  await storeOpenAi(v.a, v.owner, v.stt.url, 'sk-wrong-key')
  const refused = await v.post(pcm, 'audio/wav')
  t.same(codeOf(refused), { status: 502, code: 'upstream_error' }, refused.text)
  t.equal(expectStatus(await v.get(v.sessionPath), 200, 'detail').turn_count, 1, 'nothing recorded')

  // The voice fails after the turn ran (the stand-in has no /audio/speech): 502, the turn stays.
  await storeOpenAi(v.a, v.owner, v.stt.url)
  const mute = await surveyAgent(v.a, v.owner, { language: 'tr-TR', stt: { provider: 'openai' }, tts: { provider: 'openai' } })
  const started = expectStatus(await v.a.request('POST', `${W}/${mute}/sessions`, { token: v.owner.token }), 201, 'start')
  v.stt.script('evet')
  const path = `${W}/${mute}/sessions/${started.session_id}`
  const noVoice = await v.post(pcm, 'audio/wav', path)
  t.same(codeOf(noVoice), { status: 502, code: 'upstream_error' }, noVoice.text)
  t.equal(expectStatus(await v.get(path), 200, 'detail').turn_count, 2, 'the turn itself was recorded')
})
