/**
 * Scenario text-normalize: what the engine adds per phrase on the audio path by reading numbers,
 * money, dates, times, percentages, ordinals and phone numbers as words before TTS
 * (engine/pipeline/text/speech-text.ts, called by ReplyGenerator.synthesize for every phrase).
 * Goal: p99 ≤ 0.2 ms per phrase.
 *
 * The corpus is agent phrases as the phrase chunker cuts them, in Turkish and English, about half
 * with something to rewrite (amounts, appointment times and dates, phone numbers, discounts, floor
 * numbers) and half plain, as replies are. Each phrase is timed alone with hrtime after a warm-up,
 * one at a time, in-process: the function is synchronous and pure, so no I/O is involved.
 *
 *   npx tsx bench/text-normalize.ts [--rounds 2000] [--quick]
 *
 * stdout: the JSON result, then one summary line. The JSON also goes to bench/results/.
 */
import { parseArgs } from 'node:util'
import { speechTextFor } from '../engine/pipeline/text/speech-text.js'
import { gitState, machineInfo, note, runStamp, writeResult } from './lib/report.js'

const NAME = 'text-normalize'
const GOAL_P99_MS = 0.2
const { values: args } = parseArgs({ options: { rounds: { type: 'string' }, quick: { type: 'boolean', default: false } } })
const rounds = Number(args.rounds ?? (args.quick ? 200 : 2000))
if (!Number.isInteger(rounds) || rounds <= 0) throw new Error('--rounds takes a positive integer')

const CORPUS: Record<'tr-TR' | 'en-US', string[]> = {
  'tr-TR': [
    'Merhaba, ben Ozan, size nasıl yardımcı olabilirim?',
    'Toplam borcunuz 1.250,50 TL.',
    'Randevunuz yarın saat 14:30’da, 3. katta.',
    'Ödemeniz 27.11.2026 tarihinde alındı.',
    'Bu ay tüm ürünlerde %25 indirim var.',
    'Bizi 0532 123 45 67 numarasından arayabilirsiniz.',
    'Anladım, hemen kontrol ediyorum.',
    'Siparişiniz 3 iş günü içinde kargoya verilecek.',
    'Kredi kartınızın son ödeme tarihi 15.12.2026, asgari tutar ₺2.400.',
    'Başka bir konuda yardımcı olabilir miyim?',
    'Faiz oranı yıllık %3,5 olarak güncellendi.',
    'Müşteri hizmetlerimize +90 212 555 12 12 numarasından ulaşabilirsiniz.',
    'Tabii, bilgilerinizi tekrar alayım.',
    'Kampanya 1 Aralık’tan itibaren 30 gün geçerli.',
    'Hesabınızda 12.345,67 TL bulunuyor, 500 USD de döviz hesabınızda.',
    'Teşekkür ederim, iyi günler dilerim.',
  ],
  'en-US': [
    'Hi, this is Ozan, how can I help you today?',
    'Your balance is $1,250.50.',
    'Your appointment is tomorrow at 2:30 pm on the 3rd floor.',
    'We received your payment on 11/27/2026.',
    'Everything in store is 25% off this month.',
    'You can reach us at (212) 555-0123.',
    'Got it, let me check that for you.',
    'Your order ships within 3 business days.',
    'The minimum payment of $240 is due on 12/15/2026.',
    'Is there anything else I can help you with?',
    'The annual rate was updated to 3.5%.',
    'Our support line is +1 212 555 0199, open 9:00 to 18:00.',
    'Sure, let me take your details again.',
    'The offer runs for 30 days starting December 1st.',
    'You have 12,345.67 dollars in checking and €500 in savings.',
    'Thank you, have a great day.',
  ],
}

interface Dist {
  n: number
  p50_ms: number
  p99_ms: number
  max_ms: number
}

function dist(samples: number[]): Dist {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  const round = (ms: number) => Math.round(ms * 10_000) / 10_000
  return { n: s.length, p50_ms: round(at(0.5)), p99_ms: round(at(0.99)), max_ms: round(s.at(-1)!) }
}

const byLanguage: Record<string, Dist> = {}
const all: number[] = []
// How much of the corpus the step actually rewrites: a corpus with nothing to rewrite would measure only the no-digit shortcut.
let rewritten = 0
for (const [language, phrases] of Object.entries(CORPUS)) for (const p of phrases) if (speechTextFor(language)(p) !== p) rewritten++
for (const [language, phrases] of Object.entries(CORPUS)) {
  const speak = speechTextFor(language)
  for (let i = 0; i < 200; i++) for (const p of phrases) speak(p) // warm-up: JIT, regex compilation
  const samples: number[] = []
  for (let r = 0; r < rounds; r++)
    for (const p of phrases) {
      const t0 = process.hrtime.bigint()
      speak(p)
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  byLanguage[language] = dist(samples)
  all.push(...samples)
  note(`${language}: ${samples.length} phrases`)
}

const overall = dist(all)
const result = {
  scenario: NAME,
  goal: { p99_ms: GOAL_P99_MS },
  config: { rounds, phrases_per_language: CORPUS['tr-TR'].length, rewritten_phrases: rewritten },
  all: overall,
  by_language: byLanguage,
  machine: machineInfo(),
  git: gitState(),
}
const file = writeResult(NAME, runStamp(), result)
note(`wrote ${file}`)
console.log(JSON.stringify(result, null, 2))
console.log(
  `${NAME}: p50 ${(overall.p50_ms * 1000).toFixed(1)} µs, p99 ${overall.p99_ms} ms per phrase over ${overall.n} phrases (goal p99 ≤ ${GOAL_P99_MS} ms: ${overall.p99_ms <= GOAL_P99_MS ? 'met' : 'NOT met'})`,
)
