/**
 * Web-call wire protocol, version 1 (docs/protocol.md is the contract; keep them in step).
 * Pure: parses what a client sends and builds what the server sends. No I/O here.
 */
import { z } from 'zod'
import { SAMPLE_RATE, pcmTransient } from '../audio/index.js'
import { slabInt16 } from '../audio/slab.js'

export const PROTOCOL_VERSION = 1
/** 32 KiB = 1 s of PCM16 mono 16 kHz; a client streaming in real time never needs more. */
export const MAX_AUDIO_FRAME_BYTES = 32 * 1024
/** Control messages are tiny; this bounds JSON.parse work per message. */
export const MAX_TEXT_MESSAGE_BYTES = 4 * 1024
/**
 * The transport's own limit. Frames between MAX_AUDIO_FRAME_BYTES and this get a `frame_too_large`
 * event; above it both socket implementations close with 1009 before the message is buffered whole.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024
/** Consecutive malformed messages after which the session is closed with 4400. */
export const MAX_CONSECUTIVE_ERRORS = 20

/** Close codes: RFC 6455 §7.4.2 leaves 4000–4999 to applications. Reasons are the `reason` strings. */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  /** Invalid UTF-8 in a text message (RFC 6455 §8.1); uWS cannot send it (see socket.ts INVALID_UTF8). */
  invalidPayload: 1007,
  tooLarge: 1009,
  internalError: 1011,
  tokenInvalid: 4001,
  tokenExpired: 4002,
  tokenUsed: 4003,
  tokenForeign: 4004,
  protocolVersionUnsupported: 4005,
  concurrencyLimit: 4029,
  protocolError: 4400,
} as const

export const CloseReason = {
  [CloseCode.normal]: 'normal',
  [CloseCode.goingAway]: 'server_shutdown',
  [CloseCode.invalidPayload]: 'invalid_utf8',
  [CloseCode.tooLarge]: 'message_too_large',
  [CloseCode.internalError]: 'internal_error',
  [CloseCode.tokenInvalid]: 'token_invalid',
  [CloseCode.tokenExpired]: 'token_expired',
  [CloseCode.tokenUsed]: 'token_used',
  [CloseCode.tokenForeign]: 'token_foreign',
  [CloseCode.protocolVersionUnsupported]: 'protocol_version_unsupported',
  [CloseCode.concurrencyLimit]: 'concurrency_limit',
  [CloseCode.protocolError]: 'protocol_error',
} as const

export type ClientErrorCode = 'bad_audio_frame' | 'frame_too_large' | 'bad_message' | 'unknown_message' | 'message_too_large'

const Mute = z.object({ type: z.literal('mute'), muted: z.boolean() }).strict()
const Stop = z.object({ type: z.literal('stop') }).strict()
const Ping = z.object({ type: z.literal('ping'), id: z.union([z.string().max(64), z.number()]).optional() }).strict()
const Control = z.discriminatedUnion('type', [Mute, Stop, Ping])
export type ControlMessage = z.infer<typeof Control>
const KNOWN_TYPES = new Set(['mute', 'stop', 'ping'])

export type ClientMessage =
  | { kind: 'audio'; pcm: Int16Array }
  | { kind: 'control'; message: ControlMessage }
  | { kind: 'error'; code: ClientErrorCode; message: string }

/**
 * One binary message → 16-bit samples (little-endian on the wire, whatever the host). The samples
 * are a copy, made before this returns: `data` may be a socket's buffer, valid only during the call.
 */
export function parseBinary(data: ArrayBuffer): ClientMessage {
  if (data.byteLength > MAX_AUDIO_FRAME_BYTES) {
    return { kind: 'error', code: 'frame_too_large', message: `audio frames are at most ${MAX_AUDIO_FRAME_BYTES} bytes` }
  }
  if (data.byteLength % 2 !== 0) {
    return { kind: 'error', code: 'bad_audio_frame', message: 'PCM16 frames need an even number of bytes' }
  }
  const pcm = slabInt16(data.byteLength / 2)
  pcm.set(pcmTransient(new Uint8Array(data)))
  return { kind: 'audio', pcm }
}

/** One text message → a validated control message, or the error event to answer with. */
export function parseText(text: string): ClientMessage {
  // String length ≤ byte length, so this cheap check is exact for the rejection side.
  if (text.length > MAX_TEXT_MESSAGE_BYTES || Buffer.byteLength(text) > MAX_TEXT_MESSAGE_BYTES) {
    return { kind: 'error', code: 'message_too_large', message: `text messages are at most ${MAX_TEXT_MESSAGE_BYTES} bytes` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { kind: 'error', code: 'bad_message', message: 'text messages must be JSON objects' }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { kind: 'error', code: 'bad_message', message: 'text messages must be JSON objects' }
  }
  const type = (json as { type?: unknown }).type
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) {
    return { kind: 'error', code: 'unknown_message', message: 'unknown message type' }
  }
  const parsed = Control.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
    return { kind: 'error', code: 'bad_message', message: `invalid ${type} message${where}` }
  }
  return { kind: 'control', message: parsed.data }
}

export function parseClientMessage(data: ArrayBuffer | string, isBinary: boolean): ClientMessage {
  if (isBinary && typeof data !== 'string') return parseBinary(data)
  return parseText(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'))
}

// ─── server → client events (snake_case on the wire) ─────────────────────────────────────────────

export type CallStatus = 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended'
export type EndReason =
  | 'client_stop'
  | 'agent_ended'
  | 'idle_timeout'
  | 'max_duration'
  | 'server_shutdown'
  | 'protocol_error'
  | 'error'
  /** POST /calls/{uuid}/control `end`. */
  | 'ended_by_api'
  /** POST /calls/{uuid}/control `transfer`: a `transfer` event named the target. */
  | 'transfer'

export interface TurnMetrics {
  endpointingMs?: number
  sttMs?: number
  llmFirstTokenMs?: number
  ttsFirstByteMs?: number
  engineMs?: number
  voiceToVoiceMs?: number
  bargeInStopMs?: number
}

export type ServerEvent =
  | { type: 'hello'; protocol: number; call_id: string; audio: { encoding: 'pcm_s16le'; sample_rate_hz: number; channels: 1 }; max_frame_bytes: number }
  | { type: 'status'; status: CallStatus }
  | { type: 'transcript'; role: 'user' | 'agent'; text: string; final: boolean; turn_id: string; interrupted: boolean }
  | {
      type: 'metrics'
      turn_id: string
      endpointing_ms: number | null
      stt_ms: number | null
      llm_first_token_ms: number | null
      tts_first_byte_ms: number | null
      engine_ms: number | null
      voice_to_voice_ms: number | null
      barge_in_stop_ms: number | null
    }
  | { type: 'ended'; reason: EndReason }
  | { type: 'error'; code: string; message: string }
  | { type: 'pong'; id: string | number | null }
  /** Drop agent audio already buffered on the client (sent on barge-in). */
  | { type: 'clear' }
  /** The call is handed to `target` (control `transfer`); `ended: transfer` follows. */
  | { type: 'transfer'; target: string }

export const events = {
  hello: (callId: string): ServerEvent => ({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    call_id: callId,
    audio: { encoding: 'pcm_s16le', sample_rate_hz: SAMPLE_RATE, channels: 1 },
    max_frame_bytes: MAX_AUDIO_FRAME_BYTES,
  }),
  status: (status: CallStatus): ServerEvent => ({ type: 'status', status }),
  transcript: (t: { role: 'user' | 'agent'; text: string; final: boolean; turnId: string; interrupted?: boolean }): ServerEvent => ({
    type: 'transcript',
    role: t.role,
    text: t.text,
    final: t.final,
    turn_id: t.turnId,
    interrupted: t.interrupted ?? false,
  }),
  metrics: (turnId: string, m: TurnMetrics): ServerEvent => ({
    type: 'metrics',
    turn_id: turnId,
    endpointing_ms: m.endpointingMs ?? null,
    stt_ms: m.sttMs ?? null,
    llm_first_token_ms: m.llmFirstTokenMs ?? null,
    tts_first_byte_ms: m.ttsFirstByteMs ?? null,
    engine_ms: m.engineMs ?? null,
    voice_to_voice_ms: m.voiceToVoiceMs ?? null,
    barge_in_stop_ms: m.bargeInStopMs ?? null,
  }),
  ended: (reason: EndReason): ServerEvent => ({ type: 'ended', reason }),
  error: (code: string, message: string): ServerEvent => ({ type: 'error', code, message }),
  pong: (id: string | number | undefined): ServerEvent => ({ type: 'pong', id: id ?? null }),
  clear: (): ServerEvent => ({ type: 'clear' }),
  transfer: (target: string): ServerEvent => ({ type: 'transfer', target }),
}

export const encodeEvent = (e: ServerEvent): string => JSON.stringify(e)
