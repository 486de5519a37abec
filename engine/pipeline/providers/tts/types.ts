/**
 * The TTS stage's contract. A provider turns one piece of text into audio in the engine's format
 * (engine/audio/format.ts: PCM16 mono, 16 kHz or a phone line's 8 kHz) and yields it as it arrives, so playout can start on
 * the first chunk instead of the whole clip. Barge-in is the `signal`: on abort a provider stops its
 * work (process, HTTP stream) and its iterator rejects with `signal.reason`. Provider failures
 * reject with a `tts` ProviderError (../errors.ts).
 */
import type { SpeechRate } from '../../../audio/format.js'
import { ProviderError } from '../errors.js'

export interface SynthesizeOptions {
  /** A provider-specific voice; when absent the provider picks one for `language`, else its default. */
  voice?: string
  /** BCP 47-ish tag (`tr`, `en`, `en-US`). */
  language?: string
  /** The rate of the chunks: 16 kHz (default), or 8 kHz for a phone line. */
  sampleRate?: SpeechRate
  signal: AbortSignal
}

export interface TtsProvider {
  /** Stable id (`espeak`, `openai`, `deepgram`), part of the cache key. */
  readonly name: string
  /** Mono Int16Array chunks at `o.sampleRate` (16 kHz by default); the first as early as the provider can produce it. */
  synthesize(text: string, o: SynthesizeOptions): AsyncIterable<Int16Array>
  /** An HTTP provider opens a connection for the coming reply's first request (the caller speaks). */
  prewarm?(): void
}

/** Shared input rule: providers refuse text over their limit rather than truncate what is said. */
export function checkText(provider: string, text: string, maxChars: number): void {
  if (text.length > maxChars) {
    throw new ProviderError(
      'tts',
      'tts_failed',
      `${provider}: text of ${text.length} characters exceeds the ${maxChars}-character limit; split it into sentences`,
      {
        retryable: false,
      },
    )
  }
}
