import t from 'tap'
import {
  latencySampler,
  latencyTarget,
  startOpenAiStandIn,
  startSpeechStandIn,
  DEFAULT_SPEECH_KEYS,
} from '../../../../../engine/pipeline/providers/stand-ins/index.js'

const draw = (next: () => number, n: number) => Array.from({ length: n }, next)
const rank = (sorted: number[], p: number) => sorted[Math.ceil((p / 100) * sorted.length) - 1]!

t.test('a fixed number is always that number, and so is a spread with p50 = p95', async (t) => {
  t.same(draw(latencySampler(120), 5), [120, 120, 120, 120, 120])
  t.same(draw(latencySampler(0), 3), [0, 0, 0])
  t.same(draw(latencySampler({ p50: 80, p95: 80 }), 3), [80, 80, 80])
})

t.test('a spread is log-normal around the asked p50 and p95, in whole ms', async (t) => {
  const values = draw(latencySampler({ p50: 250, p95: 400 }), 20_000).sort((a, b) => a - b)
  t.ok(
    values.every((v) => Number.isInteger(v) && v > 0),
    'whole, positive ms',
  )
  t.ok(Math.abs(rank(values, 50) - 250) <= 5, `p50 ${rank(values, 50)} ≈ 250`)
  t.ok(Math.abs(rank(values, 95) - 400) <= 12, `p95 ${rank(values, 95)} ≈ 400`)
})

t.test('the same seed repeats the same draws; another seed does not', async (t) => {
  const spec = { p50: 300, p95: 600 }
  t.same(draw(latencySampler(spec, 7), 50), draw(latencySampler(spec, 7), 50))
  t.same(draw(latencySampler({ ...spec, seed: 7 }, 99), 50), draw(latencySampler(spec, 7), 50), 'the spec seed wins over the default')
  t.not(draw(latencySampler(spec, 7), 50).join(), draw(latencySampler(spec, 8), 50).join())
  // The sequence deepgram-server.ts drew before the sampler moved here (seed 1, p50 250, p95 300).
  t.same(draw(latencySampler({ p50: 250, p95: 300 }, 1), 8), [292, 286, 236, 243, 281, 221, 238, 262], 'the Deepgram stand-in draws as before')
})

t.test('specs that cannot be honoured are refused with a clear error', async (t) => {
  t.throws(() => latencySampler(-1), /finite number ≥ 0/)
  t.throws(() => latencySampler(NaN), /finite number ≥ 0/)
  t.throws(() => latencySampler({ p50: 300, p95: 200 }), /p95 ≥ p50 ≥ 0.*p50 300, p95 200/)
  t.throws(() => latencySampler({ p50: -5, p95: 10 }), /p95 ≥ p50 ≥ 0/)
  t.throws(() => latencySampler({ p50: 0, p95: 10 }), /p50 > 0/)
  t.same(latencyTarget(40), { p50: 40, p95: 40 })
  t.same(latencyTarget({ p50: 40, p95: 90, seed: 3 }), { p50: 40, p95: 90 })
})

t.test('the chat stand-in draws its first-token delay per request and logs when each text chunk went out', async (t) => {
  const s = await startOpenAiStandIn({ apiKey: 'sk-lat', firstTokenLatencyMs: { p50: 20, p95: 60, seed: 3 } })
  t.teardown(() => s.close())
  const expected = draw(latencySampler({ p50: 20, p95: 60, seed: 3 }), 3)
  for (let i = 0; i < 3; i++) {
    s.script({ text: ['One', ' two', ' three'] })
    const res = await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-lat' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    })
    await res.text()
  }
  t.same(
    s.requests.map((r) => r.injected.firstTokenMs),
    expected,
    'one draw per request, in seed order',
  )
  const r = s.requests[0]!
  t.equal(r.chunkSentAt.length, 3, 'three content chunks; the finish chunk carries no text')
  t.ok(r.receivedAt <= r.at, 'arrival precedes the body being read')
  t.ok(r.chunkSentAt[0]! - r.receivedAt >= expected[0]! - 1, 'the first chunk waited the drawn delay')
  t.ok(
    r.chunkSentAt.every((at, i) => i === 0 || at >= r.chunkSentAt[i - 1]!),
    'in order',
  )
  s.pace({ firstTokenLatencyMs: 5 })
  s.script({ toolCalls: [{ name: 'lookup', arguments: { id: 7 }, fragments: 2 }] })
  await (
    await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-lat' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    })
  ).text()
  const tool = s.requests.at(-1)!
  t.equal(tool.injected.firstTokenMs, 5)
  t.equal(tool.chunkSentAt.length, 3, 'the call head (its name) and both argument pieces')
})

t.test('the speech stand-in draws its first-byte delay per request and logs arrival and first byte', async (t) => {
  const s = await startSpeechStandIn({ firstByteLatencyMs: { p50: 15, p95: 40, seed: 5 } })
  t.teardown(() => s.close())
  const expected = draw(latencySampler({ p50: 15, p95: 40, seed: 5 }), 2)
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${s.openaiUrl}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEFAULT_SPEECH_KEYS.openai}` },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'hello', response_format: 'pcm' }),
    })
    await res.arrayBuffer()
  }
  t.same(
    s.requests.map((r) => r.injected.firstByteMs),
    expected,
  )
  const r = s.requests[0]!
  t.ok(r.firstByteSentAt !== null && r.firstByteSentAt - r.receivedAt >= expected[0]! - 1, 'the first byte waited the drawn delay')
  s.fail({ kind: 'status', status: 503 })
  await (
    await fetch(`${s.openaiUrl}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEFAULT_SPEECH_KEYS.openai}` },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'x', response_format: 'pcm' }),
    })
  ).arrayBuffer()
  t.equal(s.requests.at(-1)!.firstByteSentAt, null, 'no audio, no first byte')
})
