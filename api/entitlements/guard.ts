import type { Clock } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import { PRODUCT_FLAGS, type ProductFlag } from './flags.js'
import type { LimitKey, Plan, PlanCatalog } from './plans.js'
import { liveCallCap, minutesOf, minutesUsedUp, monthStart, refusal, standing, type LimitStanding } from './quota.js'

/** Limits checked by counting rows (live calls and minutes are checked when a call starts). */
type CountedLimit = 'agents' | 'webhook_endpoints' | 'api_keys'

/**
 * Where the rest of the API asks about plans and flags: one call at each point where something
 * limited is created (402 quota_exceeded over the limit), at each start of a voice call, and by
 * the live-call cap. Every check reads the organization's counts now, in the caller's synchronous
 * turn, so a check and the insert after it see the same database (better-sqlite3 is synchronous).
 */
export class EntitlementGuard {
  constructor(
    private readonly deps: {
      repos: Repos
      catalog: PlanCatalog
      clock: Clock
      /** OZAN_MAX_LIVE_CALLS_PER_ORG: what the server allows any organization, whatever its plan. */
      serverLiveCallCap: number
    },
  ) {}

  get catalog(): PlanCatalog {
    return this.deps.catalog
  }

  planFor(organizationId: string): Plan {
    const row = this.deps.repos.entitlements.planOf(organizationId)
    // Start-up refused to run with assignments the file does not define (plans.ts), so this holds.
    return (row && this.deps.catalog.get(row.plan_key)) || this.deps.catalog.default
  }

  /** 402 quota_exceeded when `adding` more of a counted resource would go over the plan. */
  assertRoom(organizationId: string, key: CountedLimit, adding = 1): void {
    const plan = this.planFor(organizationId)
    if (plan.limits[key] === null) return
    const usage = this.deps.repos.entitlements.usage(organizationId, this.deps.clock.now())
    const used = { agents: usage.agents, webhook_endpoints: usage.webhookEndpoints, api_keys: usage.apiKeys }[key]
    this.refuseIf(refusal(plan, key, used, adding))
  }

  /** Before a knowledge-base document of `bytes` is stored: one more document, that many more bytes. */
  assertKnowledgeRoom(organizationId: string, bytes: number): void {
    const plan = this.planFor(organizationId)
    if (plan.limits.knowledge_base_documents === null && plan.limits.knowledge_base_bytes === null) return
    const usage = this.deps.repos.entitlements.usage(organizationId, this.deps.clock.now())
    this.refuseIf(refusal(plan, 'knowledge_base_documents', usage.knowledgeBaseDocuments, 1))
    this.refuseIf(refusal(plan, 'knowledge_base_bytes', usage.knowledgeBaseBytes, bytes))
  }

  /**
   * Before inviting `email`: members and open invitations together stay within the plan, so every
   * invitation sent can be accepted. Inviting an address again replaces its open invitation.
   */
  assertInviteRoom(organizationId: string, email: string): void {
    const plan = this.planFor(organizationId)
    if (plan.limits.members === null) return
    const { repos, clock } = this.deps
    const now = clock.now()
    const usage = repos.entitlements.usage(organizationId, now)
    const adding = repos.entitlements.hasPendingInvitation(organizationId, email, now) ? 0 : 1
    this.refuseIf(refusal(plan, 'members', usage.members + usage.pendingInvitations, adding))
  }

  /** Before an accepted invitation adds a member (the plan may have shrunk since it was sent). */
  assertJoinRoom(organizationId: string): void {
    const plan = this.planFor(organizationId)
    if (plan.limits.members === null) return
    this.refuseIf(refusal(plan, 'members', this.deps.repos.entitlements.usage(organizationId, this.deps.clock.now()).members, 1))
  }

  /**
   * Before a voice call is set up through the API: 402 quota_exceeded when the plan leaves the
   * feature out or its monthly minutes are used up, 403 feature_disabled when the organization's
   * own flag turned the feature off. (The live-call cap is the engine's, through liveCallCap.)
   */
  assertVoiceCall(organizationId: string, channel: 'web' | 'phone'): void {
    const plan = this.planFor(organizationId)
    if (channel === 'web') this.assertFeature(organizationId, 'web_calls', plan)
    if (this.minutesUsedUp(organizationId, plan)) {
      const limit = plan.limits.monthly_minutes!
      throw new ApiError('quota_exceeded', `The ${plan.name} plan allows ${limit} minutes of voice calls a month, and this month's are used up.`)
    }
  }

  /** A product feature is on when the plan includes it and the organization has not switched it off. */
  featureState(organizationId: string, feature: ProductFlag, plan = this.planFor(organizationId)): { plan: boolean; flag: boolean; enabled: boolean } {
    const row = this.deps.repos.entitlements.flag(organizationId, feature)
    const flag = row ? row.enabled === 1 : PRODUCT_FLAGS[feature].default
    return { plan: plan.features[feature], flag, enabled: plan.features[feature] && flag }
  }

  assertFeature(organizationId: string, feature: ProductFlag, plan = this.planFor(organizationId)): void {
    const state = this.featureState(organizationId, feature, plan)
    if (!state.plan) throw new ApiError('quota_exceeded', `The ${plan.name} plan does not include ${feature.replace(/_/g, ' ')}.`)
    if (!state.flag) throw new ApiError('feature_disabled', `The organization has turned ${feature.replace(/_/g, ' ')} off (feature flag "${feature}").`)
  }

  /**
   * The organization's live-call cap now, for the engine's counter (every web and phone call takes
   * a slot from it, inbound ones included): the stricter of the server's and the plan's, and 0 once
   * the plan's monthly minutes are used up, so a call that would start then is refused.
   */
  liveCallCap(organizationId: string): number {
    const plan = this.planFor(organizationId)
    if (this.minutesUsedUp(organizationId, plan)) return 0
    return liveCallCap(this.deps.serverLiveCallCap, plan.limits.live_calls)
  }

  /** Each limit of the organization's plan with what it holds now (GET /entitlements). */
  standings(organizationId: string, liveCalls: number): Record<LimitKey, LimitStanding> {
    const plan = this.planFor(organizationId)
    const now = this.deps.clock.now()
    const u = this.deps.repos.entitlements.usage(organizationId, now)
    const l = plan.limits
    return {
      agents: standing(l.agents, u.agents),
      live_calls: standing(liveCallCap(this.deps.serverLiveCallCap, l.live_calls), liveCalls),
      monthly_minutes: standing(l.monthly_minutes, minutesOf(this.voiceMsThisMonth(organizationId))),
      knowledge_base_documents: standing(l.knowledge_base_documents, u.knowledgeBaseDocuments),
      knowledge_base_bytes: standing(l.knowledge_base_bytes, u.knowledgeBaseBytes),
      members: standing(l.members, u.members + u.pendingInvitations),
      webhook_endpoints: standing(l.webhook_endpoints, u.webhookEndpoints),
      api_keys: standing(l.api_keys, u.apiKeys),
    }
  }

  /** Sums this month's calls only when the plan limits minutes (the cap is asked at every call start). */
  private minutesUsedUp(organizationId: string, plan: Plan): boolean {
    return plan.limits.monthly_minutes !== null && minutesUsedUp(plan, this.voiceMsThisMonth(organizationId))
  }

  private voiceMsThisMonth(organizationId: string): number {
    const now = this.deps.clock.now()
    return this.deps.repos.entitlements.voiceMs(organizationId, monthStart(now), now)
  }

  private refuseIf(message: string | null): void {
    if (message !== null) throw new ApiError('quota_exceeded', message)
  }
}
