/** The library's public shapes: options, events and counters (camelCase; the wire is snake_case). */

import type { CallError } from './close-codes.js'

export type { CallError }

export interface WebCallOptions {
  /** The `token` that `POST /api/v1/calls/web-token` returned (single use, short-lived). */
  token: string
  /** Its `ws_url`, opened exactly as given: it already carries `?token=…&v=1`. */
  wsUrl: string
  /** A microphone's `deviceId` from `WebCall.listInputDevices()`; the default input otherwise. */
  inputDeviceId?: string
}

/** The protocol's call states; `idle` before `start()`. */
export type CallStatus = 'idle' | 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended'

export interface TranscriptEvent {
  role: 'user' | 'agent'
  text: string
  /** false: a partial, replaced by a later event with the same `turnId` and role. */
  final: boolean
  turnId: string
  /** Agent only: the caller barged in and `text` holds only the words actually played. */
  interrupted: boolean
}

export interface EndedEvent {
  /**
   * The engine's `ended` reason (`client_stop`, `agent_ended`, `idle_timeout`, …) when it sent
   * one; otherwise the error code that ended the call (`token_used`, `connection_lost`,
   * `mic_permission_denied`, …), or `client_stop` when `stop()` got no answer in time.
   */
  reason: string
  /** The WebSocket's close code; null when no socket was opened or it did not close by itself. */
  closeCode: number | null
}

/** Levels on a 0..1 scale (0 = −60 dBFS or quieter, 1 = full scale), about ten a second. */
export interface VolumeEvent {
  /** The microphone, muted or not (so a page can say "you are muted" when the caller talks). */
  caller: number
  /** The agent's audio as received, before `setAssistantMuted`'s gain. */
  agent: number
}

/** The engine's per-turn `metrics` event; milliseconds, null where not measured. */
export interface MetricsEvent {
  turnId: string
  endpointingMs: number | null
  sttMs: number | null
  llmFirstTokenMs: number | null
  ttsFirstByteMs: number | null
  engineMs: number | null
  voiceToVoiceMs: number | null
  bargeInStopMs: number | null
}

export interface WebCallEvents {
  status: CallStatus
  transcript: TranscriptEvent
  ended: EndedEvent
  error: CallError
  volume: VolumeEvent
  metrics: MetricsEvent
  /** The engine's `hello`: the call was admitted; `callId` is its id in the REST API. */
  connected: { callId: string }
  /** The caller barged in: agent audio not yet played was dropped (protocol `clear`). */
  clear: Record<string, never>
  /** The call was handed on (`POST /calls/{id}/control` transfer); `ended` follows. */
  transfer: { target: string }
}

export interface WebCallStats {
  /** 20 ms caller frames written to the socket. */
  framesSent: number
  /** Caller frames dropped because the socket was backed up (see the README's bounds). */
  callerFramesDropped: number
  /** Bytes of agent audio received. */
  agentBytesReceived: number
  /** Times agent playback ran dry mid-stream (counted by the playback worklet, reported ten times a second). */
  playbackUnderruns: number
  /** Agent audio dropped because the playback buffer was full, in ms. */
  playbackOverflowMs: number
  /** Agent audio waiting in the playback buffer, in ms. */
  playbackBufferedMs: number
}
