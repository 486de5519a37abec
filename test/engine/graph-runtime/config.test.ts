import t from 'tap'
import { AgentConfig, DEFAULT_BACKCHANNELS, DEFAULT_CONFIG } from '../../../engine/graph-runtime/index.js'

// The agent config (the spec's ConfigUpdate): every field has a default, and provider models and
// voices are checked against the catalog where its list is closed.

const issues = (input: unknown) => {
  const r = AgentConfig.safeParse(input)
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path, message: i.message }))
}

t.test('an empty config takes every default', async (t) => {
  t.same(AgentConfig.parse({}), DEFAULT_CONFIG)
  t.match(DEFAULT_CONFIG, {
    language: 'en-US',
    first_speaker: 'agent',
    stt: { provider: 'deepgram' },
    llm: { provider: 'openai', temperature: 0.7, max_tokens: 512 },
    tts: { provider: 'espeak', speed: 1 },
    turn_taking: { endpointing_ms: 300, interruption_min_words: 2, interruption_min_duration_ms: 400, preemptive_generation: true },
    max_call_duration_s: 1800,
    silence_timeout_s: 20,
    recording: false,
  })
  t.same(DEFAULT_CONFIG.turn_taking.backchannel_words, DEFAULT_BACKCHANNELS)
  t.ok(DEFAULT_BACKCHANNELS.includes('tamam') && DEFAULT_BACKCHANNELS.includes('uh-huh'), 'Turkish and English backchannels')
})

t.test('a partial section keeps its other defaults', async (t) => {
  const c = AgentConfig.parse({ turn_taking: { endpointing_ms: 800 }, tts: { provider: 'openai', voice: 'nova' } })
  t.equal(c.turn_taking.endpointing_ms, 800)
  t.equal(c.turn_taking.interruption_min_words, 2)
  t.same(c.tts, { provider: 'openai', voice: 'nova', speed: 1 })
  t.same(c.stt, { provider: 'deepgram' })
})

t.test('a voice outside a closed catalog list is refused at tts.voice', async (t) => {
  t.match(issues({ tts: { provider: 'openai', voice: 'nope' } }), [{ path: ['tts', 'voice'], message: /openai tts has no voice "nope".*alloy/ }])
  t.match(issues({ tts: { provider: 'deepgram', voice: 'alloy' } }), [{ path: ['tts', 'voice'] }], 'voices are checked against the chosen provider')
  // espeak's voices are the machine's installed ones, checked when a config is saved
  // (test/api/workflows/installed-voices.test.ts); the schema checks a name's shape.
  t.same(issues({ tts: { provider: 'espeak', voice: 'tr' } }), [])
  t.same(issues({ tts: { voice: 'pt-br' } }), [])
  t.match(issues({ tts: { voice: '--quiet' } }), [{ path: ['tts', 'voice'], message: /not a voice name/ }], 'never an option on its command line')
})

t.test('a model outside a closed catalog list is refused at its path', async (t) => {
  t.match(issues({ stt: { provider: 'deepgram', model: 'whisper-1' } }), [{ path: ['stt', 'model'] }])
  t.match(issues({ tts: { provider: 'openai', model: 'tts-9' } }), [{ path: ['tts', 'model'] }])
  t.same(issues({ stt: { provider: 'deepgram', model: 'nova-3' } }), [])
})

t.test('open-ended catalog entries accept any name', async (t) => {
  t.same(issues({ llm: { model: 'my-finetuned-llama-70b' } }), [], 'any LLM model (OpenAI-compatible servers)')
  t.same(issues({ stt: { provider: 'openai', model: 'whisper-large-v3' } }), [])
  t.same(issues({ tts: { provider: 'deepgram', model: 'anything', voice: 'aura-luna-en' } }), [])
})

t.test('unknown providers and out-of-range values are refused with their path', async (t) => {
  t.match(issues({ llm: { provider: 'anthropic' } }), [{ path: ['llm', 'provider'] }])
  t.match(issues({ turn_taking: { endpointing_ms: 10 } }), [{ path: ['turn_taking', 'endpointing_ms'] }])
  t.match(issues({ language: 'english' }), [{ path: ['language'] }])
  t.match(issues({ max_call_duration_s: 5 * 3600 }), [{ path: ['max_call_duration_s'] }])
  t.match(issues({ first_speaker: 'nobody' }), [{ path: ['first_speaker'] }])
})
