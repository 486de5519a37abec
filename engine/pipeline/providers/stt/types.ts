/**
 * Speech-to-text providers: one interface for streaming recognizers (Deepgram live: partials while
 * the user speaks, a final per endpoint) and for batch ones fed VAD-cut segments (OpenAI-compatible
 * transcription: one final per utterance). Audio is PCM16 mono Int16Array at the stream's rate: the
 * engine's 16 kHz (engine/audio/format.ts), or 8 kHz for a phone line, sent as the line carries it
 * (upsampling adds nothing a recognizer can use and doubles the bytes). Failures arrive as `stt`
 * ProviderErrors (../errors.ts).
 */
import type { SpeechRate } from '../../../audio/index.js'
import type { ProviderError } from '../errors.js'

export interface SttOpenOptions {
  /** BCP-47 tag, e.g. `en`, `en-US`, `tr`. */
  language: string
  /** Aborting ends the stream at once: the connection or request is torn down, events end. */
  signal: AbortSignal
  /** The rate of every frame pushed. */
  sampleRate: SpeechRate
}

export interface SttProvider {
  readonly name: string
  /** True when the provider sends partials while audio flows; false when it answers per utterance. */
  readonly streaming: boolean
  /** Never throws for provider trouble: connection and auth failures arrive as `error` events. */
  open(o: SttOpenOptions): SttStream
  /** A request-per-utterance provider opens its connection ahead of the request (speech started). */
  prewarm?(): void
}

export interface SttStream {
  /**
   * Hands over one frame (any length, 20 ms typical). Never blocks and never throws. Each provider
   * bounds what it holds and documents what it drops when full. After close() or an abort, or once
   * the stream has failed, frames are ignored (a no-op, so a late frame from the audio loop is harmless).
   */
  push(pcm: Int16Array): void
  /**
   * The VAD says the user stopped: finalize now. Deepgram sends `Finalize`; a batch provider
   * transcribes the buffered segment. A final follows promptly (or an error).
   */
  endUtterance(): void
  /**
   * Graceful end: pending audio is finalized, remaining finals are delivered, then `events` ends.
   * Idempotent; resolves once the connection is gone.
   */
  close(): Promise<void>
  /** Ends after close(), an abort, or a failure (the `error` event comes last). Iterate once. */
  readonly events: AsyncIterable<SttEvent>
}

export type SttTranscript = {
  type: 'partial' | 'final'
  text: string
  /** Offsets from the start of the stream's audio, in ms, when the provider reports them. */
  start_ms?: number
  end_ms?: number
  /** The provider saw the end of the utterance (Deepgram endpointing, or any batch final). */
  speech_final?: boolean
}

export type SttEvent = SttTranscript | { type: 'error'; error: ProviderError<'stt'> }

/** Removes the key, and anything shaped like a secret key, from provider text before it reaches a message. */
export function scrubSecret(text: string, apiKey: string): string {
  const out = apiKey ? text.split(apiKey).join('[redacted]') : text
  return out.replace(/\bsk-[\w*-]{4,}/g, '[redacted]')
}
