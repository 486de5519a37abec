/**
 * The sounds of the conversation-quality corpus that espeak-ng does not make, synthesized from a
 * seed so a corpus can be rebuilt sample for sample (no recordings are downloaded): room noise
 * (pink or brown, at a level set by the speech's and a signal-to-noise ratio) and non-speech
 * sounds a caller makes over the agent (a cough: a band-limited broadband burst; clicks: a train
 * of very short impulses). All 16 kHz mono PCM16, like the caller's microphone.
 */
import { SAMPLE_RATE, rms } from '../../engine/audio/index.js'
import { seededRandom } from '../../engine/pipeline/providers/stand-ins/index.js'

export type RoomNoiseKind = 'pink' | 'brown'

const samplesOf = (ms: number) => Math.round((ms * SAMPLE_RATE) / 1000)
const BLOCK_SAMPLES = SAMPLE_RATE / 100 // 10 ms

/** Re-exported: the corpus and its tests draw from the stand-ins' generator. */
export { seededRandom }

/** dBFS of an RMS on the 0..1 scale rms() returns; −Infinity for digital silence. */
export const dbfs = (level: number): number => (level > 0 ? 20 * Math.log10(level) : -Infinity)

/**
 * The level of the speech in `pcm` (dBFS): the RMS over its 10 ms blocks louder than −50 dBFS,
 * so the pauses between words (which a longer or slower line has more of) do not lower it.
 * −Infinity when nothing is that loud.
 */
export function activeLevelDbfs(pcm: Int16Array): number {
  let energy = 0
  let blocks = 0
  for (let at = 0; at + BLOCK_SAMPLES <= pcm.length; at += BLOCK_SAMPLES) {
    const r = rms(pcm.subarray(at, at + BLOCK_SAMPLES))
    if (dbfs(r) < -50) continue
    energy += r * r
    blocks++
  }
  return blocks ? dbfs(Math.sqrt(energy / blocks)) : -Infinity
}

/** Scales float samples to an RMS of `levelDbfs` and converts them to PCM16 (clipped). */
function toPcmAt(x: Float64Array, levelDbfs: number): Int16Array {
  let energy = 0
  for (const v of x) energy += v * v
  const current = Math.sqrt(energy / Math.max(1, x.length))
  const gain = current > 0 ? (10 ** (levelDbfs / 20) * 32768) / current : 0
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))))
}

/**
 * A loop of room noise, `ms` long, at RMS `levelDbfs`. Pink (−3 dB per octave, Paul Kellet's
 * refined filter over white noise) is a room's hum and ventilation; brown (−6 dB per octave, a
 * leaky integral of white noise) is traffic and rumble. The loop's last 20 ms are cross-faded into
 * its start, so cycling it (the callers' FramePacer does) leaves no step at the seam.
 */
export function roomNoise(kind: RoomNoiseKind, ms: number, levelDbfs: number, seed: number): Int16Array {
  const fade = samplesOf(20)
  const n = samplesOf(ms) + fade
  if (n <= 2 * fade) throw new RangeError(`a room-noise loop needs more than 20 ms, got ${ms}`)
  const random = seededRandom(seed)
  const x = new Float64Array(n)
  let b0 = 0,
    b1 = 0,
    b2 = 0,
    b3 = 0,
    b4 = 0,
    b5 = 0,
    b6 = 0
  let brown = 0
  for (let i = 0; i < n; i++) {
    const white = random() * 2 - 1
    if (kind === 'pink') {
      b0 = 0.99886 * b0 + white * 0.0555179
      b1 = 0.99332 * b1 + white * 0.0750759
      b2 = 0.969 * b2 + white * 0.153852
      b3 = 0.8665 * b3 + white * 0.3104856
      b4 = 0.55 * b4 + white * 0.5329522
      b5 = -0.7616 * b5 - white * 0.016898
      x[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + white * 0.5362
      b6 = white * 0.115926
    } else {
      // The leak (0.998: a corner near 5 Hz) keeps the walk from drifting off to a DC offset.
      brown = 0.998 * brown + white * 0.05
      x[i] = brown
    }
  }
  let mean = 0
  for (const v of x) mean += v / n
  const loop = new Float64Array(n - fade)
  for (let i = 0; i < loop.length; i++) loop[i] = x[i]! - mean
  for (let i = 0; i < fade; i++) {
    const w = i / fade
    loop[i] = w * loop[i]! + (1 - w) * (x[n - fade + i]! - mean)
  }
  return toPcmAt(loop, levelDbfs)
}

/** One pole low-pass then high-pass: keeps roughly `lowHz`..`highHz` of white noise, as a throat or a desk shapes it. */
function bandNoise(n: number, random: () => number, lowHz: number, highHz: number): Float64Array {
  const a = Math.exp((-2 * Math.PI * highHz) / SAMPLE_RATE)
  const b = Math.exp((-2 * Math.PI * lowHz) / SAMPLE_RATE)
  const out = new Float64Array(n)
  let lp = 0
  let hpPrevIn = 0
  let hp = 0
  for (let i = 0; i < n; i++) {
    lp = (1 - a) * (random() * 2 - 1) + a * lp
    hp = b * (hp + lp - hpPrevIn)
    hpPrevIn = lp
    out[i] = hp
  }
  return out
}

/**
 * A cough: one or two bursts of band-limited noise (200 Hz – 4 kHz), each with a 10 ms attack and
 * an exponential decay (70 ms), ~250 ms long, the second softer. No words: an STT hears none.
 * `levelDbfs` is the RMS of the first burst.
 */
export function cough(seed: number, levelDbfs = -14, bursts: 1 | 2 = 2): Int16Array {
  const random = seededRandom(seed)
  const burstMs = 250
  const gapMs = 120 + Math.round(random() * 60)
  const n = samplesOf(burstMs * bursts + gapMs * (bursts - 1))
  const x = new Float64Array(n)
  for (let k = 0; k < bursts; k++) {
    const start = samplesOf(k * (burstMs + gapMs))
    const noise = bandNoise(samplesOf(burstMs), random, 200, 4000)
    const burstGain = k === 0 ? 1 : 0.6
    for (let i = 0; i < noise.length; i++) {
      const tMs = (i * 1000) / SAMPLE_RATE
      const envelope = tMs < 10 ? tMs / 10 : Math.exp(-(tMs - 10) / 70)
      x[start + i] = noise[i]! * envelope * burstGain
    }
  }
  // Level by the first burst, so a second one never changes how loud the cough starts.
  const gain = (10 ** (levelDbfs / 20) * 32768) / Math.max(1e-12, rmsOf(x.subarray(0, samplesOf(burstMs))))
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))))
}

const rmsOf = (x: Float64Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / Math.max(1, x.length))

/**
 * Clicks (a pen, a tongue, a keyboard): `count` impulses of 3 ms decaying broadband noise,
 * 80–140 ms apart, peaking near `peakDbfs`. Short enough that a VAD should never call them speech.
 */
export function clicks(seed: number, count = 4, peakDbfs = -6): Int16Array {
  const random = seededRandom(seed)
  const gaps = Array.from({ length: count }, () => 80 + Math.round(random() * 60))
  const n = samplesOf(gaps.reduce((s, g) => s + g, 0) + 10)
  const out = new Int16Array(n)
  const peak = 10 ** (peakDbfs / 20) * 32767
  let at = 0
  for (let k = 0; k < count; k++) {
    const len = samplesOf(3)
    for (let i = 0; i < len; i++) out[at + i] = Math.round((random() * 2 - 1) * peak * Math.exp(-i / (len / 3)))
    at += samplesOf(gaps[k]!)
  }
  return out
}
