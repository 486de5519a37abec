/**
 * The price book: what each provider's unit costs, in integer minor units of one currency.
 * A price is `price_minor` per `per_units` units, so sub-cent rates stay exact integers
 * (Deepgram at $0.0077 a minute is 77 per 100 minutes). Pure: no I/O but the operator's file,
 * read once at start-up by the service.
 */
import fs from 'node:fs'
import { z } from 'zod'

export const SERVICE_TYPES = ['stt', 'llm', 'tts', 'telephony', 'platform'] as const
export type ServiceType = (typeof SERVICE_TYPES)[number]
export const UNITS = ['minute', '1k_input_tokens', '1k_output_tokens', '1k_characters'] as const
export type Unit = (typeof UNITS)[number]

/** Bounds keep every cost computation exact in integer arithmetic (see costMinor). */
export const MAX_PRICE_MINOR = 1_000_000
export const MAX_PER_UNITS = 1_000_000

export const PriceEntry = z.strictObject({
  service_type: z.enum(SERVICE_TYPES),
  provider: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'a provider key: lower-case letters, digits, - and _'),
  unit: z.enum(UNITS),
  price_minor: z.number().int().min(0).max(MAX_PRICE_MINOR),
  per_units: z.number().int().min(1).max(MAX_PER_UNITS).default(1),
})
export type PriceEntry = z.output<typeof PriceEntry>

/**
 * List prices (USD cents) of the providers Ozan speaks, as published when written; an operator
 * replaces any of them with OZAN_BILLING_PRICES_FILE. Local espeak-ng and your own SIP trunk cost
 * the platform nothing; the platform fee is the operator's own margin per call minute.
 */
export const DEFAULT_PRICES: readonly PriceEntry[] = [
  { service_type: 'stt', provider: 'deepgram', unit: 'minute', price_minor: 77, per_units: 100 },
  { service_type: 'stt', provider: 'openai', unit: 'minute', price_minor: 60, per_units: 100 },
  { service_type: 'llm', provider: 'openai', unit: '1k_input_tokens', price_minor: 15, per_units: 1000 },
  { service_type: 'llm', provider: 'openai', unit: '1k_output_tokens', price_minor: 60, per_units: 1000 },
  { service_type: 'tts', provider: 'deepgram', unit: '1k_characters', price_minor: 3, per_units: 1 },
  { service_type: 'tts', provider: 'openai', unit: '1k_characters', price_minor: 15, per_units: 10 },
  { service_type: 'tts', provider: 'espeak', unit: '1k_characters', price_minor: 0, per_units: 1 },
  { service_type: 'telephony', provider: 'sip', unit: 'minute', price_minor: 0, per_units: 1 },
  { service_type: 'platform', provider: 'ozan', unit: 'minute', price_minor: 5, per_units: 1 },
]

/** How many base units (counted by the engine) make one priced unit. */
export const BASE_UNITS: Record<Unit, { base: 'ms' | 'tokens' | 'characters'; perUnit: number }> = {
  minute: { base: 'ms', perUnit: 60_000 },
  '1k_input_tokens': { base: 'tokens', perUnit: 1000 },
  '1k_output_tokens': { base: 'tokens', perUnit: 1000 },
  '1k_characters': { base: 'characters', perUnit: 1000 },
}

const keyOf = (e: Pick<PriceEntry, 'service_type' | 'provider' | 'unit'>) => `${e.service_type}/${e.provider}/${e.unit}`

export class PriceBook {
  private readonly byKey: Map<string, PriceEntry>

  constructor(
    readonly currency: string,
    entries: readonly PriceEntry[],
  ) {
    this.byKey = new Map(entries.map((e) => [keyOf(e), e]))
  }

  /** The defaults with the operator's entries laid over them (same service, provider and unit: replaced). */
  static withOverrides(currency: string, overrides: readonly PriceEntry[]): PriceBook {
    return new PriceBook(currency, [...DEFAULT_PRICES, ...overrides])
  }

  entries(): PriceEntry[] {
    return [...this.byKey.values()]
  }

  /** The price, or null when the book has none (such usage is listed, priced 0, and flagged unpriced). */
  find(serviceType: ServiceType, provider: string, unit: Unit): PriceEntry | null {
    return this.byKey.get(keyOf({ service_type: serviceType, provider, unit })) ?? null
  }
}

/**
 * What `baseQuantity` base units cost at `price`, rounded up to a whole minor unit: usage is never
 * free by rounding (a 10-second call's platform fee is 1 cent, not 0). BigInt keeps it exact.
 */
export function costMinor(price: Pick<PriceEntry, 'unit' | 'price_minor' | 'per_units'>, baseQuantity: number): number {
  if (!Number.isSafeInteger(baseQuantity) || baseQuantity < 0) throw new RangeError('costMinor: baseQuantity must be a non-negative integer')
  const numerator = BigInt(baseQuantity) * BigInt(price.price_minor)
  const denominator = BigInt(price.per_units) * BigInt(BASE_UNITS[price.unit].perUnit)
  return Number((numerator + denominator - 1n) / denominator)
}

/** The operator's price file: a JSON array of price entries. Throws naming the problem. */
export function readPriceFile(file: string): PriceEntry[] {
  let raw: unknown
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`OZAN_BILLING_PRICES_FILE: cannot read ${file}: ${(err as Error).message}`)
  }
  const parsed = z.array(PriceEntry).max(500).safeParse(raw)
  if (!parsed.success) throw new Error(`OZAN_BILLING_PRICES_FILE: ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  return parsed.data
}
