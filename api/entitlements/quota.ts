import type { LimitKey, Plan } from './plans.js'

/**
 * The rules of plan limits, without I/O: what a plan allows given what an organization holds.
 * The adapter (guard.ts) reads the counts and throws; this file only decides.
 */

const UNITS: Record<LimitKey, [one: string, many: string]> = {
  agents: ['agent', 'agents'],
  live_calls: ['live call at once', 'live calls at once'],
  monthly_minutes: ['minute of voice calls a month', 'minutes of voice calls a month'],
  knowledge_base_documents: ['knowledge-base document', 'knowledge-base documents'],
  knowledge_base_bytes: ['byte of knowledge-base documents', 'bytes of knowledge-base documents'],
  members: ['member (pending invitations included)', 'members (pending invitations included)'],
  webhook_endpoints: ['webhook endpoint', 'webhook endpoints'],
  api_keys: ['API key', 'API keys'],
}

export const unitOf = (key: LimitKey, n: number) => UNITS[key][n === 1 ? 0 : 1]

/** Where an organization stands against one limit. `remaining` is null when there is no limit. */
export interface LimitStanding {
  limit: number | null
  used: number
  remaining: number | null
}

export function standing(limit: number | null, used: number): LimitStanding {
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used) }
}

/**
 * Null when `adding` more fits under the plan's limit; otherwise the refusal, as a sentence safe
 * to show (it names the plan, the limit and what the organization holds).
 */
export function refusal(plan: Plan, key: LimitKey, used: number, adding: number): string | null {
  const limit = plan.limits[key]
  if (limit === null || used + adding <= limit) return null
  return `The ${plan.name} plan allows ${limit} ${unitOf(key, limit)}; the organization has ${used}. Remove some, or ask the operator for a larger plan.`
}

/**
 * The live-call cap of an organization: the stricter of the server's (OZAN_MAX_LIVE_CALLS_PER_ORG,
 * what this machine is sized for) and the plan's (what the organization is entitled to). A plan
 * cannot lift an organization above what the server was sized for.
 */
export function liveCallCap(serverCap: number, planCap: number | null): number {
  return planCap === null ? serverCap : Math.min(serverCap, planCap)
}

/** Start of the calendar month (UTC) that `nowMs` falls in: monthly minutes restart then. */
export function monthStart(nowMs: number): number {
  const d = new Date(nowMs)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/** Minutes as reported: a started minute counts whole. */
export const minutesOf = (ms: number) => Math.ceil(ms / 60_000)

/** Whether a plan with a monthly-minutes limit has no minute left this month. */
export function minutesUsedUp(plan: Plan, voiceMs: number): boolean {
  const limit = plan.limits.monthly_minutes
  return limit !== null && voiceMs >= limit * 60_000
}
