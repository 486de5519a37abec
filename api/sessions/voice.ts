import { FRAME_SAMPLES, SAMPLE_RATE, WavError, downmix, encodeWav, parseWav, pcmFromBytes, resample } from '../../engine/audio/index.js'
import { isProviderError, type SttProvider } from '../../engine/pipeline/providers/stt/index.js'
import type { TtsProvider } from '../../engine/pipeline/providers/tts/index.js'
import { speechTextFor } from '../../engine/pipeline/text/speech-text.js'
import { ApiError } from '../http/errors.js'
import type { RawBody } from '../http/raw.js'
import { ValidationError } from '../http/validation.js'

/** The longest recording one voice turn takes; longer → 422. */
export const MAX_VOICE_TURN_MS = 60_000

/** The media types a voice turn accepts (route rawMediaTypes). */
export const VOICE_MEDIA_TYPES = ['audio/wav', 'audio/wave', 'audio/x-wav', 'audio/pcm'] as const

const invalid = (type: string, msg: string, ctx?: Record<string, unknown>): ValidationError =>
  new ValidationError([{ type, loc: ['body'], msg, ...(ctx && { ctx }) }])

/**
 * The request's audio as the engine's format (PCM16 mono 16 kHz). A WAV (PCM 16-bit, any rate and
 * channel count) is downmixed and resampled; `audio/pcm` must say `rate=16000` (PCM16LE mono) and
 * have whole samples. Unreadable, empty or over-long audio is a 422 naming the problem.
 */
export function decodeVoiceAudio(body: RawBody): Int16Array {
  let pcm: Int16Array
  if (body.mediaType === 'audio/pcm') {
    const rate = body.params['rate']
    if (rate !== String(SAMPLE_RATE)) {
      throw invalid('audio_format', `audio/pcm must be PCM16LE mono at 16 kHz: send Content-Type audio/pcm;rate=${SAMPLE_RATE}`, { rate: rate ?? null })
    }
    if (body.data.length % 2 !== 0) throw invalid('audio_invalid', `PCM16 needs an even number of bytes, got ${body.data.length}`)
    pcm = pcmFromBytes(body.data)
  } else {
    let wav
    try {
      wav = parseWav(body.data)
    } catch (err) {
      if (err instanceof WavError) throw invalid('audio_invalid', `The WAV file cannot be read: ${err.message}`, { reason: err.code })
      throw err
    }
    if (wav.sampleRate < 8000 || wav.sampleRate > 192_000)
      throw invalid('audio_format', `A WAV sample rate of ${wav.sampleRate} Hz is not supported (8000–192000)`)
    const mono = downmix(wav.samples, wav.channels)
    const ms = (mono.length * 1000) / wav.sampleRate
    // Checked before resampling, so an over-long file costs no conversion.
    if (ms > MAX_VOICE_TURN_MS) throw tooLong(ms)
    pcm = wav.sampleRate === SAMPLE_RATE ? mono : resample(mono, wav.sampleRate, SAMPLE_RATE)
  }
  if (pcm.length === 0) throw invalid('audio_empty', 'The audio holds no samples')
  const ms = (pcm.length * 1000) / SAMPLE_RATE
  if (ms > MAX_VOICE_TURN_MS) throw tooLong(ms)
  return pcm
}

const tooLong = (ms: number) =>
  invalid('audio_too_long', `The audio lasts ${(ms / 1000).toFixed(1)} s; a voice turn takes at most ${MAX_VOICE_TURN_MS / 1000} s`, {
    max_ms: MAX_VOICE_TURN_MS,
  })

/** 422 when the recognizer heard no words: nothing is recorded and the session still waits. */
export const noSpeech = () => invalid('no_speech', 'No speech was recognized in the audio')

/**
 * The words in `pcm`, as one utterance: every frame pushed, endUtterance, then the finals joined.
 * A batch recognizer is closed at once (close() finalizes what it holds); a streaming one is closed
 * once its first speech_final arrives (Deepgram's answer to Finalize, or an endpoint), and its
 * CloseStream flushes whatever else it still holds. Throws the stream's `stt` ProviderError.
 */
export async function transcribe(stt: SttProvider, pcm: Int16Array, language: string, signal: AbortSignal): Promise<string> {
  const stream = stt.open({ language, signal, sampleRate: SAMPLE_RATE })
  for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) stream.push(pcm.subarray(at, at + FRAME_SAMPLES))
  stream.endUtterance()
  let closing: Promise<void> | null = stt.streaming ? null : stream.close()
  const finals: string[] = []
  try {
    for await (const e of stream.events) {
      if (e.type === 'error') throw e.error
      if (e.type !== 'final') continue
      if (e.text) finals.push(e.text)
      if (e.speech_final && !closing) closing = stream.close()
    }
  } finally {
    await (closing ?? stream.close())
  }
  return finals.join(' ').replace(/\s+/g, ' ').trim()
}

/** The characters TTS is sent for `lines`, as synthesize() sends them (blank lines skipped, words for numbers). */
export function spokenCharacters(lines: readonly string[], language: string): number {
  const spoken = speechTextFor(language)
  return lines.reduce((n, line) => n + (line.trim() ? spoken(line).length : 0), 0)
}

/**
 * Each line synthesized in turn and joined, as a 16 kHz mono WAV; numbers, money, dates and times
 * are read as words in the agent's language, as on calls (engine/pipeline/text/speech-text.ts).
 * Throws the provider's `tts` ProviderError.
 */
export async function synthesize(
  tts: TtsProvider,
  lines: readonly string[],
  o: { voice: string | undefined; language: string; signal: AbortSignal },
): Promise<Int16Array> {
  const chunks: Int16Array[] = []
  let total = 0
  const spoken = speechTextFor(o.language)
  for (const line of lines) {
    if (!line.trim()) continue
    for await (const chunk of tts.synthesize(spoken(line), { ...(o.voice && { voice: o.voice }), language: o.language, signal: o.signal })) {
      chunks.push(chunk)
      total += chunk.length
    }
  }
  const out = new Int16Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

export function wavAudio(pcm: Int16Array) {
  return {
    format: 'wav' as const,
    sample_rate: SAMPLE_RATE,
    channels: 1,
    duration_ms: Math.round((pcm.length * 1000) / SAMPLE_RATE),
    base64: encodeWav(pcm, SAMPLE_RATE).toString('base64'),
  }
}

/**
 * A recognizer or voice failure as the spec's 502/503: the error's own status, 503
 * service_unavailable when trying again may help (unreachable, overloaded, timed out), else 502
 * upstream_error (a refused key, a refused request). The provider's own text goes to the log only.
 * Anything else is returned unchanged.
 */
export function speechApiError(err: unknown): unknown {
  if (isProviderError(err, 'stt') || isProviderError(err, 'tts')) return new ApiError(err.status === 503 ? 'service_unavailable' : 'upstream_error')
  return err
}
