import t from 'tap'
import { parseServerEvent } from '../../client/src/server-events.js'
import { encodeEvent, events } from '../../engine/server/protocol.js'

// The engine's events as the browser library reads them: the engine's own encoders are the oracle.

const read = (e: Parameters<typeof encodeEvent>[0]) => parseServerEvent(encodeEvent(e))

t.test('every event the engine sends reads into its camelCase shape', async (t) => {
  t.same(read(events.hello('c-1')), { type: 'hello', callId: 'c-1', sampleRateHz: 16_000, encoding: 'pcm_s16le', channels: 1 })
  for (const s of ['connecting', 'listening', 'thinking', 'speaking', 'ended'] as const) t.same(read(events.status(s)), { type: 'status', status: s })
  t.same(read(events.transcript({ role: 'agent', text: 'Hi', final: true, turnId: 'turn-0', interrupted: true })), {
    type: 'transcript',
    transcript: { role: 'agent', text: 'Hi', final: true, turnId: 'turn-0', interrupted: true },
  })
  t.same(read(events.metrics('turn-1', { sttMs: 120, voiceToVoiceMs: 640 })), {
    type: 'metrics',
    metrics: {
      turnId: 'turn-1',
      endpointingMs: null,
      sttMs: 120,
      llmFirstTokenMs: null,
      ttsFirstByteMs: null,
      engineMs: null,
      voiceToVoiceMs: 640,
      bargeInStopMs: null,
    },
  })
  t.same(read(events.ended('client_stop')), { type: 'ended', reason: 'client_stop' })
  t.same(read(events.error('stt_failed', 'The transcription failed.')), { type: 'error', error: { code: 'stt_failed', message: 'The transcription failed.' } })
  t.same(read(events.clear()), { type: 'clear' })
  t.same(read(events.transfer('+15550100')), { type: 'transfer', target: '+15550100' })
  t.same(read(events.pong('x')), { type: 'pong', id: 'x' })
})

t.test('what this version does not know is ignored, not an error (the protocol versioning rule)', async (t) => {
  t.equal(parseServerEvent('{"type":"future_event","x":1}'), null)
  t.equal(parseServerEvent('not json'), null)
  t.equal(parseServerEvent('[1,2]'), null)
  t.equal(parseServerEvent('{"type":"status","status":"dancing"}'), null)
  t.same(parseServerEvent('{"type":"ended","reason":"client_stop","extra":true}'), { type: 'ended', reason: 'client_stop' })
})
