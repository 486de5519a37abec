/**
 * The delays the stand-ins inject: a fixed number of ms, or a spread given as p50/p95 and drawn
 * from a log-normal (real provider latencies are right-skewed: a floor, a body, a long tail). The
 * draw is seeded (mulberry32 + Box–Muller) so a bench run can be repeated sample for sample.
 */

/** A fixed delay in ms, or a seeded log-normal spread with this median and 95th percentile. */
export type LatencySpec = number | { p50: number; p95: number; seed?: number }

/** z of the standard normal's 95th percentile: p95 = p50 · e^(σ·Z95) fixes σ. */
const Z95 = 1.645

/**
 * Returns a function giving the next delay (whole ms for a spread, as is for a fixed number).
 * `defaultSeed` applies when the spec carries none. Throws on a spec that cannot be honoured,
 * rather than silently drawing something else.
 */
export function latencySampler(spec: LatencySpec, defaultSeed = 1): () => number {
  if (typeof spec === 'number') {
    if (!(Number.isFinite(spec) && spec >= 0)) throw new RangeError(`latency must be a finite number ≥ 0 ms, got ${spec}`)
    return () => spec
  }
  const { p50, p95 } = spec
  if (!(Number.isFinite(p50) && Number.isFinite(p95) && p50 >= 0 && p95 >= p50)) {
    throw new RangeError(`latency spread needs finite p95 ≥ p50 ≥ 0 ms, got p50 ${p50}, p95 ${p95}`)
  }
  if (p95 === p50) return () => p50
  // A log-normal's median is its scale: with p50 = 0 every draw would be 0, whatever p95 says.
  if (p50 === 0) throw new RangeError(`latency spread needs p50 > 0 when p95 > p50 (got p50 0, p95 ${p95}); use a fixed 0 instead`)
  const sigma = Math.log(p95 / p50) / Z95
  const uniform = seededRandom(spec.seed ?? defaultSeed)
  return () => {
    const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())
    return Math.round(p50 * Math.exp(sigma * z))
  }
}

/** The p50/p95 a spec aims at (a fixed delay is its own p50 and p95), for a bench's config echo. */
export function latencyTarget(spec: LatencySpec): { p50: number; p95: number } {
  return typeof spec === 'number' ? { p50: spec, p95: spec } : { p50: spec.p50, p95: spec.p95 }
}

/** A seeded uniform generator on [0, 1) (mulberry32): small, fast, the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
