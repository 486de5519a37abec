/** The Kaiser window, shared by the resampler's and the half-band filter's windowed sincs. */

/** Zeroth-order modified Bessel function of the first kind, by its power series. */
function besselI0(x: number): number {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-12) break
  }
  return sum
}

// I0(β) for the last β asked: tap tables call the window thousands of times with one β.
let lastBeta = Number.NaN
let lastI0 = 1

/** The window at `r` (−1 … 1 across its span; 0 outside) for shape `beta`. */
export function kaiser(r: number, beta: number): number {
  if (Math.abs(r) >= 1) return 0
  if (beta !== lastBeta) {
    lastI0 = besselI0(beta)
    lastBeta = beta
  }
  return besselI0(beta * Math.sqrt(1 - r * r)) / lastI0
}
