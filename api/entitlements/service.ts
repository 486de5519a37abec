import type { Clock } from '../../core/index.js'
import type { FeatureFlagRow, Repos } from '../../db/index.js'
import type { Auditor } from '../audit/auditor.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import type { Principal } from '../security/principal.js'
import { isProductFlag, MAX_FLAGS_PER_ORGANIZATION, PRODUCT_FLAG_KEYS, PRODUCT_FLAGS } from './flags.js'
import type { EntitlementGuard } from './guard.js'
import type { Plan } from './plans.js'
import { monthStart } from './quota.js'
import type { EntitlementsResponseT, FlagResponseT, FlagToggleT, FlagUpsertT, PlanResponseT } from './schema.js'

const iso = (ms: number) => new Date(ms).toISOString()

export interface EntitlementServiceDeps {
  repos: Repos
  guard: EntitlementGuard
  auditor: Auditor
  clock: Clock
  /** Live calls the organization holds now (the engine's counter). */
  liveCalls(organizationId: string): number
}

/** GET /entitlements…, and the organization's feature flags. */
export class EntitlementService {
  constructor(private readonly deps: EntitlementServiceDeps) {}

  plans(): PlanResponseT[] {
    const { catalog } = this.deps.guard
    return catalog.plans.map((plan) => planResponse(plan, plan.key === catalog.defaultKey))
  }

  entitlements(p: Principal): EntitlementsResponseT {
    const { guard, clock } = this.deps
    const plan = guard.planFor(p.organizationId)
    const start = monthStart(clock.now())
    const next = new Date(start)
    next.setUTCMonth(next.getUTCMonth() + 1)
    return {
      organization_id: p.organizationId,
      plan: planResponse(plan, plan.key === guard.catalog.defaultKey),
      period: { start: iso(start), end: next.toISOString() },
      limits: guard.standings(p.organizationId, this.deps.liveCalls(p.organizationId)),
      features: Object.fromEntries(PRODUCT_FLAG_KEYS.map((f) => [f, guard.featureState(p.organizationId, f, plan)])),
    }
  }

  /** Every product flag (set or at its default) and every flag of the organization's own. */
  flags(p: Principal): Record<string, boolean> {
    const out: Record<string, boolean> = Object.fromEntries(PRODUCT_FLAG_KEYS.map((k) => [k, PRODUCT_FLAGS[k].default]))
    for (const row of this.deps.repos.entitlements.flags(p.organizationId)) out[row.key] = row.enabled === 1
    return out
  }

  upsert(p: Principal, body: FlagUpsertT, req: RequestInfo): FlagResponseT {
    const { repos } = this.deps
    return repos.transaction(() => {
      const before = repos.entitlements.flag(p.organizationId, body.key)
      if (!before && repos.entitlements.countFlags(p.organizationId) >= MAX_FLAGS_PER_ORGANIZATION) throw new ApiError('flag_limit')
      return this.write(p, req, body.key, body.enabled, body.description, before)
    })
  }

  /** Sets (or, without `enabled`, flips) a flag the organization has: a stored one, or a product flag. */
  toggle(p: Principal, key: string, body: FlagToggleT, req: RequestInfo): FlagResponseT {
    const { repos } = this.deps
    return repos.transaction(() => {
      const before = repos.entitlements.flag(p.organizationId, key)
      if (!before && !isProductFlag(key)) throw new ApiError('not_found')
      const current = before ? before.enabled === 1 : isProductFlag(key) && PRODUCT_FLAGS[key].default
      // A product flag set for the first time becomes a stored row, which the flag limit counts.
      if (!before && repos.entitlements.countFlags(p.organizationId) >= MAX_FLAGS_PER_ORGANIZATION) throw new ApiError('flag_limit')
      return this.write(p, req, key, body.enabled ?? !current, undefined, before)
    })
  }

  private write(p: Principal, req: RequestInfo, key: string, enabled: boolean, description: string | null | undefined, before: FeatureFlagRow | undefined) {
    const row = this.deps.repos.entitlements.upsertFlag({
      organizationId: p.organizationId,
      key,
      enabled,
      description,
      updatedBy: p.userId,
      now: this.deps.clock.now(),
    })
    const previous = before ? before.enabled === 1 : isProductFlag(key) ? PRODUCT_FLAGS[key].default : null
    this.deps.auditor.record(p, req, {
      action: 'feature_flag.set',
      resourceType: 'feature_flag',
      resourceId: key,
      metadata: { enabled, previous, created: !before },
    })
    return flagResponse(row)
  }
}

function planResponse(plan: Plan, isDefault: boolean): PlanResponseT {
  return { key: plan.key, name: plan.name, description: plan.description, default: isDefault, limits: { ...plan.limits }, features: { ...plan.features } }
}

function flagResponse(row: FeatureFlagRow): FlagResponseT {
  return {
    key: row.key,
    enabled: row.enabled === 1,
    description: row.description ?? (isProductFlag(row.key) ? PRODUCT_FLAGS[row.key].description : null),
    product: isProductFlag(row.key),
    updated_at: iso(row.updated_at),
    updated_by: row.updated_by,
  }
}
