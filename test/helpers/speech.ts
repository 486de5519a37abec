import { execFile } from 'node:child_process'
import { SAMPLE_RATE } from '../../engine/audio/format.js'
import { rms } from '../../engine/audio/pcm.js'
import { resample } from '../../engine/audio/resample.js'
import { downmix, parseWav } from '../../engine/audio/wav.js'

/**
 * Synthetic speech for the voice tests: espeak-ng (scripts/system-packages.txt) converted to the
 * engine's format, and the silences and noise to build timelines around it.
 */

let available: Promise<boolean> | undefined

/** Whether espeak-ng can be run here; checked once. */
export function espeakAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => execFile('espeak-ng', ['--version'], (err) => resolve(!err)))
  return available
}

/**
 * For tap's `skip` option. Outside CI a machine without espeak-ng skips the speech tests; in CI
 * a missing espeak-ng is a broken image, so the test file fails instead of silently passing.
 */
export async function skipWithoutEspeak(): Promise<string | false> {
  if (await espeakAvailable()) return false
  if (process.env['CI'] === 'true') throw new Error('espeak-ng is not installed (scripts/system-packages.txt) and CI=true')
  return 'espeak-ng is not installed'
}

export interface SpeakOptions {
  /** espeak-ng words per minute. */
  wordsPerMinute?: number
  /** Cut the leading and trailing near-silence espeak-ng adds (default true). */
  trim?: boolean
}

/** `text` spoken by espeak-ng voice `voice` (`en`, `tr` …), as 16 kHz mono PCM16. */
export async function speak(text: string, voice: string, options: SpeakOptions = {}): Promise<Int16Array> {
  const { wordsPerMinute = 160, trim = true } = options
  const wav = await new Promise<Buffer>((resolve, reject) =>
    execFile('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '--stdout', text], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  )
  const { sampleRate, channels, samples } = parseWav(wav)
  const pcm = resample(downmix(samples, channels), sampleRate, SAMPLE_RATE)
  return trim ? trimSilence(pcm) : pcm
}

/** 10 ms frames below this level (dBFS) count as espeak-ng's silence. */
export const TRIM_LEVEL_DB = -50
const TRIM_FRAME = SAMPLE_RATE / 100

/** `pcm` without its leading and trailing frames quieter than TRIM_LEVEL_DB. */
export function trimSilence(pcm: Int16Array, levelDb = TRIM_LEVEL_DB): Int16Array {
  const loud = (frame: number): boolean => 20 * Math.log10(Math.max(rms(pcm.subarray(frame * TRIM_FRAME, (frame + 1) * TRIM_FRAME)), 1e-9)) >= levelDb
  const frames = Math.ceil(pcm.length / TRIM_FRAME)
  let first = 0
  while (first < frames && !loud(first)) first++
  let last = frames - 1
  while (last >= first && !loud(last)) last--
  return pcm.slice(first * TRIM_FRAME, Math.min(pcm.length, (last + 1) * TRIM_FRAME))
}

export function silence(ms: number): Int16Array {
  return new Int16Array(Math.round((ms * SAMPLE_RATE) / 1000))
}

/** Uniform white noise of the given RMS level in dBFS, from a seeded generator (reproducible). */
export function whiteNoise(ms: number, levelDb: number, seed = 1): Int16Array {
  let s = seed >>> 0 || 1
  // Uniform on [-a, a] has RMS a/√3.
  const amplitude = 32768 * 10 ** (levelDb / 20) * Math.sqrt(3)
  return Int16Array.from({ length: Math.round((ms * SAMPLE_RATE) / 1000) }, () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return Math.round(((s >>> 0) / 0xffffffff) * 2 * amplitude - amplitude)
  })
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export interface Segment {
  startMs: number
  endMs: number
}

/**
 * Joins silences (numbers, in ms) and utterances (sample arrays) and says where each utterance
 * lies, e.g. `timeline(500, hello, 800, world, 500)`.
 */
export function timeline(...parts: Array<number | Int16Array>): { pcm: Int16Array; speech: Segment[] } {
  const speech: Segment[] = []
  const pieces: Int16Array[] = []
  let samples = 0
  for (const part of parts) {
    const piece = typeof part === 'number' ? silence(part) : part
    if (typeof part !== 'number') {
      speech.push({ startMs: (samples * 1000) / SAMPLE_RATE, endMs: ((samples + piece.length) * 1000) / SAMPLE_RATE })
    }
    pieces.push(piece)
    samples += piece.length
  }
  return { pcm: concat(...pieces), speech }
}
