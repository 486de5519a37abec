import t from 'tap'
import { normalizeForSpeech, type Locale } from '../../../../engine/text/locale/index.js'

// Whatever a model writes reaches normalizeForSpeech on the audio path: it must never throw and
// never take long, whatever the digits and separators around them.

/** A deterministic generator (mulberry32), so a failure replays. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const ALPHABET = [..."0123456789012345678901234567890123456789.,:;/-+%()$€£₺' ’ aptmlTLİIıi şçkat\n"]

t.test('random digit and separator soup never throws, in either locale', async (t) => {
  const random = rng(7)
  let failures = 0
  for (let i = 0; i < 20_000; i++) {
    const length = 1 + Math.floor(random() * 40)
    const text = Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('')
    for (const locale of ['tr', 'en'] as Locale[]) {
      try {
        const out = normalizeForSpeech(text, locale)
        if (typeof out !== 'string') failures++
      } catch (err) {
        failures++
        if (failures < 5) t.fail(`${locale} ${JSON.stringify(text)}: ${(err as Error).message}`)
      }
    }
  }
  t.equal(failures, 0)
})

t.test('long adversarial inputs are answered (a backtracking blow-up would hang here until the test timeout)', async (t) => {
  const inputs = [
    '1.'.repeat(2500),
    '1,'.repeat(2500),
    '+1 '.repeat(1600),
    '12:'.repeat(1600),
    '9'.repeat(5000),
    '1.000'.repeat(1000),
    `${'%'.repeat(2500)}1`,
    '(0'.repeat(2500),
    "5'".repeat(2500),
  ]
  for (const text of inputs)
    for (const locale of ['tr', 'en'] as Locale[]) {
      const out = normalizeForSpeech(text, locale)
      t.notMatch(out, /\d{16}/, `${locale} ${JSON.stringify(text.slice(0, 12))}…: no run of digits past an amount survives`)
    }
})
