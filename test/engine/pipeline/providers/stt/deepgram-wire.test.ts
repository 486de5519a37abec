import t from 'tap'
import { closeError, connectError, resultsToEvent, type DeepgramResults } from '../../../../../engine/pipeline/providers/stt/deepgram-wire.js'

const results = (text: string, flags: Partial<DeepgramResults>): DeepgramResults => ({
  type: 'Results',
  start: 1.25,
  duration: 0.5,
  channel: { alternatives: [{ transcript: text }] },
  ...flags,
})

t.test('interim results become partials; empty ones are dropped', async (t) => {
  t.same(resultsToEvent(results('hello', { is_final: false })), { type: 'partial', text: 'hello', start_ms: 1250, end_ms: 1750 })
  t.equal(resultsToEvent(results('', { is_final: false })), null)
})

t.test('finals keep speech_final; an empty final counts only when it answers a Finalize', async (t) => {
  t.same(resultsToEvent(results('hello there', { is_final: true, speech_final: false })), {
    type: 'final',
    text: 'hello there',
    start_ms: 1250,
    end_ms: 1750,
    speech_final: false,
  })
  t.same(resultsToEvent(results('hi', { is_final: true, speech_final: true })), { type: 'final', text: 'hi', start_ms: 1250, end_ms: 1750, speech_final: true })
  t.equal(resultsToEvent(results('', { is_final: true })), null)
  t.same(resultsToEvent(results('', { is_final: true, from_finalize: true })), { type: 'final', text: '', start_ms: 1250, end_ms: 1750, speech_final: true })
})

t.test('connection failures map by HTTP status, and never carry the key', async (t) => {
  t.match(connectError('Unexpected server response: 401', 'h', 'k'), { code: 'stt_auth', retryable: false, upstreamStatus: 401 })
  t.match(connectError('Unexpected server response: 403', 'h', 'k'), { code: 'stt_auth' })
  t.match(connectError('Unexpected server response: 429', 'h', 'k'), { code: 'stt_unavailable', retryable: true })
  t.match(connectError('Unexpected server response: 502', 'h', 'k'), { code: 'stt_unavailable', retryable: true })
  t.match(connectError('Unexpected server response: 400', 'h', 'k'), { code: 'stt_failed', retryable: false })
  t.match(connectError('TIMEOUT', 'h', 'k'), { code: 'stt_timeout', retryable: true })
  const e = connectError('connect ECONNREFUSED with secret-key inside', 'h', 'secret-key')
  t.match(e, { code: 'stt_unavailable', retryable: true })
  t.notMatch(e.message, 'secret-key')
})

t.test('server closes map by close code', async (t) => {
  t.match(closeError(4001, '', 'h', 'k'), { code: 'stt_auth', retryable: false })
  t.match(closeError(1008, 'DATA-0000', 'h', 'k'), { code: 'stt_failed', retryable: false })
  t.match(closeError(1011, 'NET-0001', 'h', 'k'), { code: 'stt_failed', retryable: true, upstreamStatus: 1011 })
})
