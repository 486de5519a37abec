/**
 * The Deepgram stand-in's public shapes (deepgram-server.ts runs it): what a test scripts and
 * injects, and what the stand-in logs of every session and utterance.
 */
import type http from 'node:http'
import type { DeepgramAuth } from './deepgram-wire.js'
import type { LatencySpec } from './latency.js'
import type { DeepgramModelRecord, ListingFailure, ListingRequest } from './model-listing.js'

export interface ScriptedUtterance {
  text: string
  /** Speech end → final for this utterance, overriding `finalLatencyMs`. */
  latencyMs?: number
  /**
   * How long the utterance's speech lasts in the audio: from its first loud 10 ms block to the end
   * of its last. With it, each interim holds the words whose audio has arrived (each word's end
   * placed by its share of the characters), as Deepgram's cumulative interims do, so one may hold
   * every word before the final. Without it, interims add one word per interim while speech flows
   * and never show the last one.
   */
  speechMs?: number
}

/** One failure, used by the next connection. */
export type DeepgramFailure =
  /** Refuses the WebSocket upgrade with this HTTP status and Deepgram's error body. */
  | { kind: 'reject'; status: number }
  /** Closes the socket with `code` once `afterAudioMs` of audio arrived (0: at the first audio). */
  | { kind: 'close'; code: number; reason?: string; afterAudioMs?: number }
  /** Accepts, then never sends anything, never closes, ignores Finalize and CloseStream. */
  | { kind: 'hang' }

export interface UtteranceLog {
  text: string
  /** No utterance was scripted: the transcript is empty. */
  unscripted: boolean
  /** Audio time (ms since the stream's first sample) of speech start and end. */
  speechStartMs: number
  speechEndMs: number
  /** performance.now() when the last speech audio arrived, and when the final was sent. */
  speechEndAt: number
  finalSentAt: number
  /** performance.now() of the first Results (interim or the final) that held the final's whole transcript. */
  completeAt: number
  /**
   * The delay after speechEndAt the stand-in imposed on this final: the one it drew, or less when
   * CloseStream (or a next utterance) made it send the final early.
   */
  injectedLatencyMs: number
  endedBy: 'endpointing' | 'finalize' | 'close_stream'
}

export type DeepgramOutcome = 'rejected' | 'completed' | 'client_closed' | 'server_closed'

export interface DeepgramSession {
  at: number
  query: URLSearchParams
  /** How the key came: `Authorization: Token …` header, or the `token, <key>` subprotocol browsers use. */
  auth: DeepgramAuth
  authorized: boolean
  failure: string | null
  audioBytes: number
  keepAlives: number
  finalizes: number
  closeStreams: number
  utterances: UtteranceLog[]
  /** Every JSON message sent, in order. */
  sent: Array<Record<string, unknown>>
  outcome: DeepgramOutcome | undefined
  /** The close code of the WebSocket (or the HTTP status of a refused upgrade). */
  closeCode: number | undefined
  ended: Promise<DeepgramOutcome>
}

export interface DeepgramStandInOptions {
  apiKey: string
  host?: string
  port?: number
  /** Speech end → final: a fixed delay, or a log-normal spread (latency.ts; default p50 250, p95 300). */
  finalLatencyMs?: LatencySpec
  /** Audio ms between interim results while an utterance lasts (default 250). */
  interimEveryMs?: number
  /** Pauses shorter than this never end an utterance (it cannot tell words apart); default 200. */
  minPauseMs?: number
  /** RMS (0..1) of a 10 ms block above which it counts as speech; default 0.02. */
  speechThreshold?: number
  /** Deepgram closes (1011, NET-0001) after this long without audio or KeepAlive; default 10 000. */
  idleTimeoutMs?: number
  /** Seed for the latency spread when `finalLatencyMs` carries none, so a bench run can be repeated. */
  seed?: number
  /**
   * What an utterance says when nothing is scripted, asked as its speech starts (`npm run
   * stand-ins` rotates caller lines with it). Default, or undefined: an empty transcript, logged
   * `unscripted`.
   */
  fallback?: (session: DeepgramSession) => ScriptedUtterance | string | undefined
  /**
   * Paths (prefixes) another stand-in answers on this port, e.g. the speech stand-in's Deepgram
   * Aura handler at /v1/speak: one "deepgram" credential's base URL serves both live
   * transcription and speech (as in the OpenAI stand-in's `mount`).
   */
  mount?: { prefix: string; handler: (req: http.IncomingMessage, res: http.ServerResponse) => void }[]
  /** What `GET /v1/models` lists (model-listing.ts); default DEFAULT_DEEPGRAM_MODELS. */
  models?: { stt: DeepgramModelRecord[]; tts: DeepgramModelRecord[] }
}

export interface DeepgramStandIn {
  /** Origin to give the SDK as baseUrl: ws://127.0.0.1:<port> */
  url: string
  sessions: DeepgramSession[]
  script(...utterances: Array<ScriptedUtterance | string>): void
  fail(...failures: DeepgramFailure[]): void
  /** Every `GET /v1/models` received, and failures for the next ones (their own queue). */
  modelListings: ListingRequest[]
  failModelListing(...failures: ListingFailure[]): void
  close(): Promise<void>
}
