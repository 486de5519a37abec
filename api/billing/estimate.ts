/**
 * A price estimate before anything runs: assumed counts for one call, priced as metering prices
 * real ones (meter.ts), times the number of calls. Pure.
 */
import type { AgentConfig } from '../../engine/graph-runtime/index.js'
import { priceUsage, type StageProviders } from './meter.js'
import type { PriceBook } from './pricing.js'
import type { EstimateRequestT } from './schema.js'

/** Turns per minute assumed when the request does not say. */
export const DEFAULT_TURNS_PER_MINUTE = 4

/** The stages' providers of an agent config; telephony for phone calls. */
export function providersOf(config: AgentConfig, channel: 'web' | 'phone' | 'chat'): StageProviders {
  return { stt: config.stt.provider, llm: config.llm.provider, tts: config.tts.provider, telephony: channel === 'phone' ? 'sip' : null }
}

export function estimate(book: PriceBook, providers: StageProviders, r: EstimateRequestT) {
  const voice = r.channel !== 'chat'
  const turns = r.turns ?? Math.round(r.minutes * DEFAULT_TURNS_PER_MINUTE)
  const callMs = Math.round(r.minutes * 60_000)
  const cost = priceUsage(
    book,
    { ...providers, telephony: r.channel === 'phone' ? (providers.telephony ?? 'sip') : null },
    {
      voice,
      callMs,
      // The engine streams all the caller's audio to STT while the call lasts.
      sttAudioMs: voice ? callMs : 0,
      promptTokens: turns * r.input_tokens_per_turn,
      completionTokens: turns * r.output_tokens_per_turn,
      ttsCharacters: voice ? turns * r.characters_per_turn : 0,
    },
  )
  return {
    currency: book.currency,
    calls: r.calls,
    providers: { ...providers, telephony: r.channel === 'phone' ? (providers.telephony ?? 'sip') : null },
    items: cost.items,
    per_call_minor: cost.amount_minor,
    total_minor: cost.amount_minor * r.calls,
    assumptions: {
      minutes: r.minutes,
      turns,
      input_tokens_per_turn: r.input_tokens_per_turn,
      output_tokens_per_turn: r.output_tokens_per_turn,
      characters_per_turn: r.characters_per_turn,
    },
  }
}
