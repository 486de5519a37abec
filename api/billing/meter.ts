/**
 * Prices what a session used: pure, from the engine's and runtime's own counts in base units
 * (milliseconds, tokens, characters). The estimate (estimate.ts) prices assumed counts the same way.
 */
import { BASE_UNITS, costMinor, type PriceBook, type ServiceType, type Unit } from './pricing.js'

/** Which provider each stage used. telephony is null unless the call came over a phone line. */
export interface StageProviders {
  stt: string
  llm: string
  tts: string
  telephony: string | null
}

/** What a session used, in base units. */
export interface MeteredUsage {
  /** Voice calls pay by the minute (platform, telephony); text sessions do not. */
  voice: boolean
  callMs: number
  sttAudioMs: number
  promptTokens: number
  completionTokens: number
  ttsCharacters: number
}

export interface CostItem {
  service_type: ServiceType
  provider: string
  unit: Unit
  /** In priced units (minutes, thousands of tokens or characters), to 3 decimals; for reading. */
  quantity: number
  /** The exact count the amount was computed from (ms, tokens or characters). */
  base_quantity: number
  base_unit: 'ms' | 'tokens' | 'characters'
  price_minor: number
  per_units: number
  amount_minor: number
  /** The price book had no price for it: counted, priced 0. */
  unpriced: boolean
}

export interface Cost {
  items: CostItem[]
  amount_minor: number
  currency: string
}

function item(book: PriceBook, serviceType: ServiceType, provider: string, unit: Unit, base: number): CostItem {
  const price = book.find(serviceType, provider, unit)
  const { base: baseUnit, perUnit } = BASE_UNITS[unit]
  return {
    service_type: serviceType,
    provider,
    unit,
    quantity: Math.round((base / perUnit) * 1000) / 1000,
    base_quantity: base,
    base_unit: baseUnit,
    price_minor: price?.price_minor ?? 0,
    per_units: price?.per_units ?? 1,
    amount_minor: price ? costMinor(price, base) : 0,
    unpriced: price === null,
  }
}

/** The itemised cost of `u`; lines with nothing used are left out. */
export function priceUsage(book: PriceBook, providers: StageProviders, u: MeteredUsage): Cost {
  const lines: [ServiceType, string, Unit, number][] = [
    ['stt', providers.stt, 'minute', u.sttAudioMs],
    ['llm', providers.llm, '1k_input_tokens', u.promptTokens],
    ['llm', providers.llm, '1k_output_tokens', u.completionTokens],
    ['tts', providers.tts, '1k_characters', u.ttsCharacters],
  ]
  if (u.voice && providers.telephony !== null) lines.push(['telephony', providers.telephony, 'minute', u.callMs])
  if (u.voice) lines.push(['platform', 'ozan', 'minute', u.callMs])
  const items = lines.filter(([, , , base]) => base > 0).map(([s, p, unit, base]) => item(book, s, p, unit, base))
  return { items, amount_minor: items.reduce((n, i) => n + i.amount_minor, 0), currency: book.currency }
}
