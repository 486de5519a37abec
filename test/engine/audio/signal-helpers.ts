/** Test signals and measures for the audio filters' tests. */

export const sine = (hz: number, rate: number, seconds: number, amplitude = 16000): Int16Array =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)))

/** Amplitude of the `hz` component (Goertzel), on the same scale as the samples. */
export function amplitudeAt(samples: Int16Array, hz: number, rate: number): number {
  const w = (2 * Math.PI * hz) / rate
  const coeff = 2 * Math.cos(w)
  let s1 = 0
  let s2 = 0
  for (const x of samples) {
    const s0 = x + coeff * s1 - s2
    s2 = s1
    s1 = s0
  }
  return (2 * Math.sqrt(s1 * s1 + s2 * s2 - coeff * s1 * s2)) / samples.length
}

/** Middle of a signal, away from the start-up and tail transients. */
export const middle = (s: Int16Array): Int16Array => s.subarray(Math.floor(s.length / 4), Math.floor((3 * s.length) / 4))

export const db = (ratio: number): number => 20 * Math.log10(ratio)

/** A streaming converter (Resampler, HalfbandUpsampler): push, then flush the held-back tail. */
export interface Converter {
  push(samples: Int16Array): Int16Array
  flush(): Int16Array
}

/** All of `input` through `c`, the flushed tail included. */
export function whole(c: Converter, input: Int16Array): Int16Array {
  const head = c.push(input)
  const tail = c.flush()
  const out = new Int16Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}
