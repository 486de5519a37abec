/**
 * Metering's writes: what ended work used, priced and recorded with its debit, in one transaction
 * and once (a usage row keyed by what was billed; a second settle changes nothing). BillingService
 * calls these with billing on.
 */
import type { Clock } from '../../core/index.js'
import type { SessionRow } from '../../db/index.js'
import type { BillingRepo } from '../../db/repos/billing.js'
import { AgentConfig } from '../../engine/graph-runtime/index.js'
import { providersOf } from './estimate.js'
import { type Cost, priceUsage } from './meter.js'
import type { PriceBook } from './pricing.js'

export interface SettleDeps {
  billing: BillingRepo
  book: PriceBook
  clock: Clock
}

/** LLM tokens in and out. */
export interface TokenUsage {
  prompt_tokens: number
  completion_tokens: number
}

/** What a test run's case is billed under: its run and the agent config it ran. */
export type TestRunBilled = { id: string; organization_id: string; environment_id: string; workflow_id: string; config: string }

/** A stored config, or the defaults when it no longer parses (a bill must not fail on it). */
export function safeConfig(json: string): AgentConfig {
  try {
    return AgentConfig.parse(JSON.parse(json))
  } catch {
    return AgentConfig.parse({})
  }
}

/** The price book's channel of a session's (a text run is priced as a chat). */
const pricedChannel = (channel: string): 'web' | 'phone' | 'chat' => (channel === 'phone' ? 'phone' : channel === 'web' ? 'web' : 'chat')

/** An ended session or call: its minutes, speech and tokens; the cost goes into its report. */
export function settleSession(d: SettleDeps, row: SessionRow, counts: { sttAudioMs: number; ttsCharacters: number }): Cost {
  const voice = row.channel === 'web' || row.channel === 'phone'
  const callMs = voice ? Math.max(0, (row.ended_at ?? row.updated_at) - row.started_at) : 0
  const sttAudioMs = Math.max(0, Math.round(counts.sttAudioMs))
  const ttsCharacters = Math.max(0, Math.round(counts.ttsCharacters))
  const cost = priceUsage(d.book, providersOf(safeConfig(row.config), pricedChannel(row.channel)), {
    voice,
    callMs,
    sttAudioMs,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    ttsCharacters,
  })
  const now = d.clock.now()
  const debit =
    cost.amount_minor > 0
      ? {
          organization_id: row.organization_id,
          kind: 'usage' as const,
          amount_minor: -cost.amount_minor,
          currency: cost.currency,
          description: `${row.channel} session usage`,
          session_id: row.id,
          created_at: now,
        }
      : null
  d.billing.settle(
    {
      session_id: row.id,
      organization_id: row.organization_id,
      environment_id: row.environment_id,
      workflow_id: row.workflow_id,
      channel: row.channel,
      call_ms: callMs,
      stt_audio_ms: sttAudioMs,
      prompt_tokens: row.prompt_tokens,
      completion_tokens: row.completion_tokens,
      tts_characters: ttsCharacters,
      items: JSON.stringify(cost.items),
      amount_minor: cost.amount_minor,
      currency: cost.currency,
      ended_at: row.ended_at ?? now,
    },
    debit,
  )
  return cost
}

/**
 * A session's post-call analysis (api/analysis): its LLM tokens, the session's own bill having been
 * settled when it ended. Run inside the job's finishing transaction, so its end and cost commit together.
 */
export function settleAnalysis(d: SettleDeps, row: SessionRow, usage: TokenUsage): Cost {
  return settleTokens(d, {
    usageId: `analysis:${row.id}`,
    channel: 'analysis',
    organizationId: row.organization_id,
    environmentId: row.environment_id,
    workflowId: row.workflow_id,
    config: row.config,
    priced: pricedChannel(row.channel),
    usage,
    description: `post-call analysis of session ${row.id}`,
  })
}

/**
 * A test-suite case (api/test-suites): the LLM tokens it used (the agent's, the simulated
 * caller's and the rubric judge's), in the transaction that records the case's end.
 */
export function settleTestCase(d: SettleDeps, run: TestRunBilled, position: number, usage: TokenUsage): Cost {
  return settleTokens(d, {
    usageId: `test:${run.id}:${position}`,
    channel: 'test',
    organizationId: run.organization_id,
    environmentId: run.environment_id,
    workflowId: run.workflow_id,
    config: run.config,
    priced: 'chat',
    usage,
    description: `test run ${run.id}, case ${position + 1}`,
  })
}

/**
 * LLM tokens spent outside a session's own bill, priced by the agent's LLM provider: a usage row of
 * their own (`usageId`; its `channel` is not counted as a session) and, when they cost anything, a debit.
 */
function settleTokens(
  d: SettleDeps,
  o: {
    usageId: string
    channel: 'analysis' | 'test'
    organizationId: string
    environmentId: string
    workflowId: string | null
    config: string
    priced: 'web' | 'phone' | 'chat'
    usage: TokenUsage
    description: string
  },
): Cost {
  const promptTokens = Math.max(0, Math.round(o.usage.prompt_tokens))
  const completionTokens = Math.max(0, Math.round(o.usage.completion_tokens))
  const cost = priceUsage(d.book, providersOf(safeConfig(o.config), o.priced), {
    voice: false,
    callMs: 0,
    sttAudioMs: 0,
    promptTokens,
    completionTokens,
    ttsCharacters: 0,
  })
  const now = d.clock.now()
  d.billing.settle(
    {
      session_id: o.usageId,
      organization_id: o.organizationId,
      environment_id: o.environmentId,
      workflow_id: o.workflowId,
      channel: o.channel,
      call_ms: 0,
      stt_audio_ms: 0,
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      tts_characters: 0,
      items: JSON.stringify(cost.items),
      amount_minor: cost.amount_minor,
      currency: cost.currency,
      ended_at: now,
    },
    // The ledger's session link is a session's own bill (one usage row per session): none here.
    cost.amount_minor > 0
      ? {
          organization_id: o.organizationId,
          kind: 'usage',
          amount_minor: -cost.amount_minor,
          currency: cost.currency,
          description: o.description,
          created_at: now,
        }
      : null,
  )
  return cost
}
