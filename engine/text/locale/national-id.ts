/**
 * The Turkish identity number (T.C. Kimlik No): 11 digits, the first not 0; with d1…d11 its digits,
 * d10 = ((d1 + d3 + d5 + d7 + d9) × 7 − (d2 + d4 + d6 + d8)) mod 10 and d11 = (d1 + … + d10) mod 10.
 */
export interface NationalIdCheck {
  /** 11 digits, the first not 0. */
  wellFormed: boolean
  /** Well formed and both check digits right. */
  valid: boolean
}

export function checkTurkishNationalId(value: string): NationalIdCheck {
  if (!/^[1-9]\d{10}$/.test(value)) return { wellFormed: false, valid: false }
  const d = Array.from(value, (c) => c.charCodeAt(0) - 48)
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
  const even = d[1]! + d[3]! + d[5]! + d[7]!
  const tenth = (((odd * 7 - even) % 10) + 10) % 10
  const eleventh = (odd + even + d[9]!) % 10
  return { wellFormed: true, valid: d[9] === tenth && d[10] === eleventh }
}
