import t from 'tap'
import {
  bargeInStopMs,
  capacityFrom,
  distribution,
  engineAddedMs,
  jitterMs,
  llmPhraseMs,
  providerSumMs,
  rssPerSessionMb,
  summarize,
  voiceToVoiceMs,
} from '../../bench/voice/metrics.js'
import type { ReplyTimeline } from '../../bench/voice/timeline.js'
import type { CapacityStep } from '../../bench/voice/result.js'

/**
 * One reply, hand-timed: speech ends at 1000, the wait is 300 (eot 1300), the STT final goes at
 * 1200 (injected 150), the LLM request arrives at 1210 with chunks at 1310, 1330, 1350, the first
 * synthesis request arrives at 1335 (so the phrase ends with the 1330 chunk: 120 ms of LLM time),
 * the TTS injected 80.
 */
function reply(over: Partial<ReplyTimeline> = {}): ReplyTimeline {
  return {
    speechEndAt: 1000,
    firstAudioAt: 1420,
    endOfTurnWaitMs: 300,
    preemptive: true,
    stt: { finalSentAt: 1200, injectedMs: 150 },
    llm: { receivedAt: 1210, chunkSentAt: [1310, 1330, 1350], injectedFirstTokenMs: 100 },
    tts: { receivedAt: 1335, firstByteSentAt: 1415, injectedMs: 80 },
    ...over,
  }
}

t.test('distribution: nearest-rank percentiles, mean, min, max', async (t) => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i) // 1..100, unsorted
  t.same(distribution(values), { n: 100, p50: 50, p95: 95, p99: 99, mean: 50.5, min: 1, max: 100 })
  t.same(distribution([7, 1, 3]), { n: 3, p50: 3, p95: 7, p99: 7, mean: 3.667, min: 1, max: 7 })
  t.same(distribution([4.25]), { n: 1, p50: 4.25, p95: 4.25, p99: 4.25, mean: 4.25, min: 4.25, max: 4.25 })
  t.same(distribution([]), { n: 0, p50: 0, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }, 'empty: zeros, never NaN')
  t.same(distribution([0.0001234, 0.0001234]).p50, 0, 'kept to the µs')
})

t.test('voice-to-voice is first audio minus speech end, null without audio', async (t) => {
  t.equal(voiceToVoiceMs(reply()), 420)
  t.equal(voiceToVoiceMs(reply({ firstAudioAt: null })), null)
})

t.test('the LLM phrase ends with the last chunk sent before the synthesis request arrived', async (t) => {
  t.equal(llmPhraseMs(reply()), 120)
  t.equal(llmPhraseMs(reply({ tts: { receivedAt: 1330, firstByteSentAt: 1410, injectedMs: 80 } })), 120, 'a chunk at the same instant counts')
  t.equal(llmPhraseMs(reply({ tts: { receivedAt: 1300, firstByteSentAt: 1380, injectedMs: 80 } })), 100, 'no chunk before it: the injected first-token delay')
  t.equal(providerSumMs(reply()), 150 + 120 + 80)
})

t.test('missing pieces give null, never a made-up number', async (t) => {
  for (const missing of ['stt', 'llm', 'tts'] as const) {
    t.equal(providerSumMs(reply({ [missing]: null })), null, `provider sum without ${missing}`)
    t.equal(engineAddedMs(reply({ [missing]: null })), null, `engine added without ${missing}`)
  }
  t.equal(engineAddedMs(reply({ firstAudioAt: null })), null)
})

t.test('preemptive: the chain runs under the wait, ideal = max(eot, final + chain)', async (t) => {
  // chain = 120 + 80 = 200; final + chain = 1400 > eot 1300 → ideal 1400; audio at 1420 → 20.
  t.equal(engineAddedMs(reply()), 20)
  // A long wait hides the whole chain: eot 1000 + 600 = 1600 → ideal 1600; audio at 1603 → 3.
  t.equal(engineAddedMs(reply({ endOfTurnWaitMs: 600, firstAudioAt: 1603 })), 3)
})

t.test("preemptive: an interim holding the final's words lets the chain start before the final", async (t) => {
  // words at 1150: 1150 + 200 = 1350 > eot 1300 → ideal 1350; audio at 1356 → 6.
  t.equal(engineAddedMs(reply({ stt: { finalSentAt: 1200, injectedMs: 150, completeAt: 1150 }, firstAudioAt: 1356 })), 6)
  // Words early enough that the wait decides: 1050 + 200 < 1300 → ideal 1300.
  t.equal(engineAddedMs(reply({ stt: { finalSentAt: 1200, injectedMs: 150, completeAt: 1050 }, firstAudioAt: 1304 })), 4)
  // The speculation silence is a configured wait: words at 1050, but speculating only from 1000 + 150.
  t.equal(engineAddedMs(reply({ speculateAfterMs: 150, stt: { finalSentAt: 1200, injectedMs: 150, completeAt: 1050 }, firstAudioAt: 1357 })), 7)
  // ... and never later than the final: 1000 + 250 > final 1200 → start 1200, ideal 1400.
  t.equal(engineAddedMs(reply({ speculateAfterMs: 250, stt: { finalSentAt: 1200, injectedMs: 150, completeAt: 1050 }, firstAudioAt: 1402 })), 2)
  // Without preemption the interim does not help: the chain waits for the final.
  t.equal(engineAddedMs(reply({ preemptive: false, stt: { finalSentAt: 1200, injectedMs: 150, completeAt: 1050 }, firstAudioAt: 1504 })), 4)
})

t.test('not preemptive: the chain starts once both the wait and the final are in', async (t) => {
  // ideal = max(1300, 1200) + 200 = 1500; audio at 1504 → 4.
  t.equal(engineAddedMs(reply({ preemptive: false, firstAudioAt: 1504 })), 4)
  // A late final: max(1300, 1450) + 200 = 1650; audio 1655 → 5.
  t.equal(engineAddedMs(reply({ preemptive: false, stt: { finalSentAt: 1450, injectedMs: 400 }, firstAudioAt: 1655 })), 5)
})

t.test('engine-added keeps its sign: clock noise may make it slightly negative', async (t) => {
  t.equal(engineAddedMs(reply({ firstAudioAt: 1399.5 })), -0.5)
})

t.test('barge-in stop: speech onset → the last agent audio received', async (t) => {
  t.equal(bargeInStopMs({ speechOnsetAt: 5000, lastAgentAudioAt: 5230, engineStopMs: 4 }), 230)
})

t.test('jitter anchors on the lower envelope, so no frame counts as early', async (t) => {
  t.same(jitterMs([]), [])
  t.same(jitterMs([100, 120, 140, 160]), [0, 0, 0, 0], 'a perfect 20 ms schedule')
  // A late first frame: anchoring on it would make the others 5 ms early; the envelope puts it at +5.
  t.same(jitterMs([105, 120, 140, 163]), [5, 0, 0, 3])
  // A burst after a stall: frames 2 and 3 arrive together at 170 (due 140, 160).
  t.same(jitterMs([100, 120, 170, 170, 180]), [0, 0, 30, 10, 0])
  t.same(jitterMs([0, 10, 20], 10), [0, 0, 0], 'frame length as given')
})

t.test('summarize fills latency and barge_in, leaving out turns without a figure', async (t) => {
  const s = summarize(
    [reply(), reply({ firstAudioAt: null }), reply({ tts: null, firstAudioAt: 1500 })],
    [
      { speechOnsetAt: 0, lastAgentAudioAt: 200, engineStopMs: 3 },
      { speechOnsetAt: 0, lastAgentAudioAt: 100, engineStopMs: null },
    ],
  )
  t.equal(s.latency.turns, 3)
  t.same(s.latency.samples, { voice_to_voice_ms: [420, 500], engine_added_ms: [20] })
  t.match(s.latency.voice_to_voice_ms, { n: 2, p50: 420, p95: 500, max: 500 })
  t.match(s.latency.provider_sum_ms, { n: 2, p50: 350 })
  t.equal(s.barge_in.count, 2)
  t.same(s.barge_in.samples, { stop_ms: [200, 100], engine_stop_ms: [3] })
  t.match(s.barge_in.stop_ms, { n: 2, p50: 100, p95: 200 })
})

const step = (sessions: number, ok: boolean): CapacityStep => ({ sessions, ok, jitter_p99_ms: ok ? 2 : 15, loop_lag_p99_ms: 5, rss_mb: 100 })

t.test('capacity is the largest N such that it and every smaller tested N were ok', async (t) => {
  t.equal(capacityFrom([step(50, true), step(100, true), step(150, false)]), 100)
  t.equal(capacityFrom([step(200, true), step(50, true), step(100, false), step(150, true)]), 50, 'a pass above a failure does not count, in any order')
  t.equal(capacityFrom([step(100, true), step(100, false)]), 0, 'a repeated N must pass every time')
  t.equal(capacityFrom([step(50, false), step(100, true)]), 0)
  t.equal(capacityFrom([step(50, true), step(100, true)]), 100, 'all ok: the largest tested')
  t.equal(capacityFrom([]), 0)
})

t.test('RSS per session is the least-squares slope, the baseline its intercept', async (t) => {
  t.same(
    rssPerSessionMb([
      { sessions: 0, rss_mb: 80 },
      { sessions: 100, rss_mb: 280 },
      { sessions: 200, rss_mb: 480 },
    ]),
    { rss_per_session_mb: 2, baseline_rss_mb: 80 },
  )
  // Noisy: points (0,81) (100,279) (200,481) → slope 2, intercept 80.333.
  t.same(
    rssPerSessionMb([
      { sessions: 0, rss_mb: 81 },
      { sessions: 100, rss_mb: 279 },
      { sessions: 200, rss_mb: 481 },
    ]),
    { rss_per_session_mb: 2, baseline_rss_mb: 80.333 },
  )
  t.equal(
    rssPerSessionMb([
      { sessions: 50, rss_mb: 100 },
      { sessions: 50, rss_mb: 110 },
    ]),
    null,
    'one session count: no slope',
  )
  t.equal(rssPerSessionMb([]), null)
})

t.test('provider time as it happened: the finish chunk that closed the phrase, the TTS stand-in overshooting', async (t) => {
  // The phrase was the whole reply: its last text chunk at 1330, but only the finish chunk at 1352
  // told the engine it was whole; the synthesis request came at 1356. LLM = 1352 − 1210 = 142.
  const whole = reply({
    llm: { receivedAt: 1210, chunkSentAt: [1310, 1330], finishSentAt: 1352, injectedFirstTokenMs: 100 },
    tts: { receivedAt: 1356, firstByteSentAt: 1436, injectedMs: 80 },
    firstAudioAt: 1440,
  })
  t.equal(llmPhraseMs(whole), 142)
  // ideal = max(1300, 1200 + 142 + 80) = 1422 → 18 ms: the engine's gaps, 10 (final → LLM request)
  // + 4 (finish → synthesis request) + 4 (first byte → caller).
  t.equal(engineAddedMs(whole), 18)
  // The stand-in meant 80 ms but its timer fired at 90: those 10 ms are the provider's.
  const late = reply({ tts: { receivedAt: 1335, firstByteSentAt: 1425, injectedMs: 80 }, firstAudioAt: 1430 })
  t.equal(engineAddedMs(late), 1430 - Math.max(1300, 1200 + 120 + 90))
  t.equal(providerSumMs(late), 150 + 120 + 90)
})
