import { z } from 'zod'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'
import { MAX_PER_UNITS, MAX_PRICE_MINOR, SERVICE_TYPES, UNITS } from './pricing.js'

const currency = z.string().describe('ISO 4217 code, lower case (the deployment has one currency).')
const provider = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'a provider key such as deepgram or openai')

export const ProviderCostResponse = z
  .object({
    service_type: z.enum(SERVICE_TYPES),
    provider: z.string(),
    unit: z.enum(UNITS),
    price_minor: z.number().int().min(0).max(MAX_PRICE_MINOR).describe('Minor units (cents) per `per_units` units.'),
    per_units: z.number().int().min(1).max(MAX_PER_UNITS),
    currency,
  })
  .meta({ id: 'ProviderCostResponse' })

export const CostItem = z
  .object({
    service_type: z.enum(SERVICE_TYPES),
    provider: z.string(),
    unit: z.enum(UNITS),
    quantity: z.number().min(0).describe('In priced units (minutes, thousands of tokens or characters), rounded to 3 decimals.'),
    base_quantity: z.number().int().min(0).describe('The exact count priced: milliseconds, tokens or characters.'),
    base_unit: z.enum(['ms', 'tokens', 'characters']),
    price_minor: z.number().int().min(0),
    per_units: z.number().int().min(1),
    amount_minor: z.number().int().min(0).describe('Rounded up to a whole minor unit.'),
    unpriced: z.boolean().describe('The price book has no price for this provider and unit: counted, priced 0.'),
  })
  .meta({ id: 'CostItem' })

export const Providers = z.strictObject({
  stt: provider.default('deepgram'),
  llm: provider.default('openai'),
  tts: provider.default('espeak'),
  telephony: provider.nullable().default(null).describe('Set for phone calls (e.g. "sip"); null: browser calls, no telephony line.'),
})

export const EstimateRequest = z
  .strictObject({
    workflow_uuid: z.uuid().optional().describe("Price this agent's newest published providers."),
    providers: Providers.optional().describe('Or name the providers directly (wins over workflow_uuid).'),
    channel: z.enum(['web', 'phone', 'chat']).default('web').describe('phone adds telephony minutes; chat has no audio.'),
    minutes: z.number().min(0).max(100_000).describe('Length of one call (or chat) in minutes.'),
    calls: z.number().int().min(1).max(1_000_000).default(1),
    turns: z.number().int().min(0).max(100_000).optional().describe('Caller turns per call; default 4 per minute.'),
    input_tokens_per_turn: z.number().int().min(0).max(1_000_000).default(800),
    output_tokens_per_turn: z.number().int().min(0).max(100_000).default(60),
    characters_per_turn: z.number().int().min(0).max(100_000).default(200).describe('Characters the agent speaks per turn.'),
  })
  .meta({ id: 'EstimateRequest' })
export type EstimateRequestT = z.output<typeof EstimateRequest>

export const EstimateResponse = z
  .object({
    currency,
    calls: z.number().int(),
    providers: Providers,
    items: z.array(CostItem).describe('For one call.'),
    per_call_minor: z.number().int().min(0),
    total_minor: z.number().int().min(0).describe('per_call_minor × calls.'),
    assumptions: z.object({
      minutes: z.number(),
      turns: z.number().int(),
      input_tokens_per_turn: z.number().int(),
      output_tokens_per_turn: z.number().int(),
      characters_per_turn: z.number().int(),
    }),
  })
  .meta({ id: 'EstimateResponse' })

const UsageLine = z.object({
  service_type: z.enum(SERVICE_TYPES),
  provider: z.string(),
  unit: z.enum(UNITS),
  quantity: z.number().min(0),
  base_quantity: z.number().int().min(0),
  amount_minor: z.number().int().min(0),
})

export const UsageQuery = z.object({
  since: z.iso.datetime({ offset: true }).optional().describe('Start of the period; default the first instant of this month (UTC).'),
  until: z.iso.datetime({ offset: true }).optional().describe('End of the period (exclusive); default now.'),
})

export const UsageSummaryResponse = z
  .object({
    period_start: z.iso.datetime(),
    period_end: z.iso.datetime(),
    currency,
    sessions: z.number().int().min(0),
    amount_minor: z.number().int().min(0),
    by_provider: z.array(UsageLine),
    by_agent: z
      .array(
        z.object({
          workflow_uuid: z.uuid().nullable().describe('null: transient agents given inline.'),
          workflow_name: z.string().nullable(),
          sessions: z.number().int().min(0),
          call_ms: z.number().int().min(0),
          amount_minor: z.number().int().min(0),
        }),
      )
      .describe('Most expensive first; at most 1000 agents.'),
  })
  .meta({ id: 'UsageSummaryResponse' })

export const CreditBalanceResponse = z
  .object({
    balance_minor: z.number().int().describe('The sum of the ledger; may dip below 0 by the last calls’ cost (docs/billing.md).'),
    currency,
    billing_enabled: z.boolean().describe('false: this server does not charge (OZAN_BILLING=off); nothing is refused for credit.'),
    updated_at: z.iso.datetime().nullable().describe('When the last transaction was recorded.'),
  })
  .meta({ id: 'CreditBalanceResponse' })

export const CreditTransactionResponse = z
  .object({
    id: z.uuid(),
    kind: z.enum(['topup', 'grant', 'usage']),
    amount_minor: z.number().int().describe('Positive: credit added; negative: usage debited.'),
    balance_after_minor: z.number().int(),
    currency,
    description: z.string(),
    session_uuid: z.uuid().nullable(),
    provider: z.string().nullable().describe('stripe or manual for credits; null for usage.'),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'CreditTransactionResponse' })

export const DEFAULT_TRANSACTION_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const TransactionListQuery = z.object({ ...pageQuery(DEFAULT_TRANSACTION_PAGE_LIMITS) })

/** The least and most one top-up may add (minor units). */
export const MIN_TOPUP_MINOR = 100
export const MAX_TOPUP_MINOR = 10_000_000

const returnUrl = z.url({ protocol: /^https?$/ }).max(2000)
export const TopupRequest = z
  .strictObject({
    amount_minor: z.number().int().min(MIN_TOPUP_MINOR).max(MAX_TOPUP_MINOR).describe('Credit to buy, in minor units.'),
    success_url: returnUrl.optional().describe('Where the payment page sends the buyer after paying; default the public URL.'),
    cancel_url: returnUrl.optional().describe('Where it sends them if they give up; default the public URL.'),
  })
  .meta({ id: 'TopupRequest' })
export type TopupRequestT = z.output<typeof TopupRequest>

export const RedirectResponse = z
  .object({
    url: z.url().describe('The payment page to send the buyer to.'),
    provider: z.enum(['stripe', 'manual']),
    topup_id: z.uuid(),
    amount_minor: z.number().int(),
    currency,
  })
  .meta({ id: 'RedirectResponse' })

export const StripeWebhookHeaders = z.object({ 'stripe-signature': z.string().min(1).max(2000) })
export const WebhookReceipt = z.object({ received: z.literal(true), duplicate: z.boolean() }).meta({ id: 'PaymentWebhookReceipt' })
