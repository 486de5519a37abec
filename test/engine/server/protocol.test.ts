import t from 'tap'
import { MAX_AUDIO_FRAME_BYTES, MAX_TEXT_MESSAGE_BYTES, events, parseClientMessage, parseText } from '../../../engine/server/protocol.js'

const bin = (bytes: number[]) => new Uint8Array(bytes).buffer

t.test('binary frames are little-endian PCM16 samples', async (t) => {
  const m = parseClientMessage(bin([0x01, 0x00, 0x00, 0x80, 0xff, 0x7f]), true)
  t.equal(m.kind, 'audio')
  if (m.kind === 'audio') t.same(Array.from(m.pcm), [1, -32768, 32767])
})

t.test('an odd byte count is bad_audio_frame; over the maximum is frame_too_large; empty is fine', async (t) => {
  t.match(parseClientMessage(bin([1, 2, 3]), true), { kind: 'error', code: 'bad_audio_frame' })
  t.match(parseClientMessage(new ArrayBuffer(MAX_AUDIO_FRAME_BYTES + 2), true), { kind: 'error', code: 'frame_too_large' })
  t.match(parseClientMessage(new ArrayBuffer(MAX_AUDIO_FRAME_BYTES), true), { kind: 'audio' })
  t.match(parseClientMessage(new ArrayBuffer(0), true), { kind: 'audio' })
})

t.test('control messages are validated strictly', async (t) => {
  t.same(parseText('{"type":"mute","muted":true}'), { kind: 'control', message: { type: 'mute', muted: true } })
  t.same(parseText('{"type":"stop"}'), { kind: 'control', message: { type: 'stop' } })
  t.same(parseText('{"type":"ping","id":"a"}'), { kind: 'control', message: { type: 'ping', id: 'a' } })
  t.match(parseText('{"type":"mute"}'), { kind: 'error', code: 'bad_message' })
  t.match(parseText('{"type":"stop","now":true}'), { kind: 'error', code: 'bad_message' }, 'extra fields are refused')
  t.match(parseText('{"type":"teleport"}'), { kind: 'error', code: 'unknown_message' })
  t.match(parseText('{"kind":"stop"}'), { kind: 'error', code: 'unknown_message' })
  t.match(parseText('{'), { kind: 'error', code: 'bad_message' })
  t.match(parseText('null'), { kind: 'error', code: 'bad_message' })
  t.match(parseText('"stop"'), { kind: 'error', code: 'bad_message' })
  t.match(parseText(' '.repeat(MAX_TEXT_MESSAGE_BYTES + 1)), { kind: 'error', code: 'message_too_large' })
  t.match(parseText(`{"type":"ping","id":"${'é'.repeat(MAX_TEXT_MESSAGE_BYTES / 2)}"}`), { kind: 'error', code: 'message_too_large' }, 'the limit is in bytes')
})

t.test('a text message sent as binary-flagged ArrayBuffer text is decoded', async (t) => {
  t.match(parseClientMessage(new TextEncoder().encode('{"type":"stop"}').buffer as ArrayBuffer, false), { kind: 'control' })
})

t.test('server events have the documented snake_case shapes', async (t) => {
  t.same(events.status('listening'), { type: 'status', status: 'listening' })
  t.same(events.transcript({ role: 'agent', text: 'Hi', final: true, turnId: 't1' }), {
    type: 'transcript',
    role: 'agent',
    text: 'Hi',
    final: true,
    turn_id: 't1',
    interrupted: false,
  })
  t.same(events.metrics('t1', { sttMs: 120, voiceToVoiceMs: 800 }), {
    type: 'metrics',
    turn_id: 't1',
    endpointing_ms: null,
    stt_ms: 120,
    llm_first_token_ms: null,
    tts_first_byte_ms: null,
    engine_ms: null,
    voice_to_voice_ms: 800,
    barge_in_stop_ms: null,
  })
  t.same(events.metrics('t2', { bargeInStopMs: 3 })['barge_in_stop_ms' as never], 3)
  t.same(events.transfer('+905551112233'), { type: 'transfer', target: '+905551112233' })
  t.same(events.ended('ended_by_api'), { type: 'ended', reason: 'ended_by_api' })
  t.same(events.ended('client_stop'), { type: 'ended', reason: 'client_stop' })
  t.same(events.error('bad_message', 'x'), { type: 'error', code: 'bad_message', message: 'x' })
  t.same(events.pong(undefined), { type: 'pong', id: null })
  t.match(events.hello('c1'), { type: 'hello', protocol: 1, call_id: 'c1', audio: { sample_rate_hz: 16000 } })
})
