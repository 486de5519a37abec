/**
 * The engine's JSON events (docs/protocol.md §4) read into the library's camelCase shapes. Pure.
 * Per the protocol's versioning rule, unknown events and unknown fields are ignored, never errors.
 */
import type { CallError, CallStatus, MetricsEvent, TranscriptEvent } from './types.js'

export type ServerEvent =
  | { type: 'hello'; callId: string; sampleRateHz: number; encoding: string; channels: number }
  | { type: 'status'; status: Exclude<CallStatus, 'idle'> }
  | { type: 'transcript'; transcript: TranscriptEvent }
  | { type: 'metrics'; metrics: MetricsEvent }
  | { type: 'ended'; reason: string }
  | { type: 'error'; error: CallError }
  | { type: 'clear' }
  | { type: 'transfer'; target: string }
  | { type: 'pong'; id: string | number | null }

const STATUSES = new Set(['connecting', 'listening', 'thinking', 'speaking', 'ended'])

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback)
const ms = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** One text message → the event it carries, or null when it is not one this version knows. */
export function parseServerEvent(text: string): ServerEvent | null {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null
  const e = json as Record<string, unknown>
  switch (e['type']) {
    case 'hello': {
      const audio = (typeof e['audio'] === 'object' && e['audio'] !== null ? e['audio'] : {}) as Record<string, unknown>
      return {
        type: 'hello',
        callId: str(e['call_id']),
        sampleRateHz: typeof audio['sample_rate_hz'] === 'number' ? audio['sample_rate_hz'] : 16_000,
        encoding: str(audio['encoding'], 'pcm_s16le'),
        channels: typeof audio['channels'] === 'number' ? audio['channels'] : 1,
      }
    }
    case 'status':
      return STATUSES.has(e['status'] as string) ? { type: 'status', status: e['status'] as Exclude<CallStatus, 'idle'> } : null
    case 'transcript': {
      const role = e['role']
      if (role !== 'user' && role !== 'agent') return null
      return {
        type: 'transcript',
        transcript: { role, text: str(e['text']), final: e['final'] === true, turnId: str(e['turn_id']), interrupted: e['interrupted'] === true },
      }
    }
    case 'metrics':
      return {
        type: 'metrics',
        metrics: {
          turnId: str(e['turn_id']),
          endpointingMs: ms(e['endpointing_ms']),
          sttMs: ms(e['stt_ms']),
          llmFirstTokenMs: ms(e['llm_first_token_ms']),
          ttsFirstByteMs: ms(e['tts_first_byte_ms']),
          engineMs: ms(e['engine_ms']),
          voiceToVoiceMs: ms(e['voice_to_voice_ms']),
          bargeInStopMs: ms(e['barge_in_stop_ms']),
        },
      }
    case 'ended':
      return { type: 'ended', reason: str(e['reason'], 'normal') }
    case 'error':
      return { type: 'error', error: { code: str(e['code'], 'error'), message: str(e['message']) } }
    case 'clear':
      return { type: 'clear' }
    case 'transfer':
      return { type: 'transfer', target: str(e['target']) }
    case 'pong': {
      const id = e['id']
      return { type: 'pong', id: typeof id === 'string' || typeof id === 'number' ? id : null }
    }
    default:
      return null
  }
}
