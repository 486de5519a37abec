import type { Clock } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import type { PlanCatalog } from './plans.js'

export const PLANS_USAGE = `usage: ozan-plans <command>
  list                                   the plans of OZAN_PLANS_FILE and how many organizations are on each
  show <organization-id>                 the plan an organization is on
  assign <organization-id> <plan> [note] put an organization on a plan (the note is kept, never shown to it)
  unassign <organization-id>             put an organization back on the default plan`

export interface PlansCommandResult {
  /** 0 done, 1 refused (unknown organization or plan), 64 usage error (EX_USAGE). */
  code: number
  out: string
}

const MAX_NOTE = 500

/**
 * The operator's plan commands (bin/ozan-plans.ts), over the repositories: which plan an
 * organization is on is set here, by whoever runs the server, never through the API. Assignments
 * take effect on the next request (limits are read per request) and are written to the
 * organization's audit trail as a system action.
 */
export function runPlansCommand(args: readonly string[], deps: { repos: Repos; catalog: PlanCatalog; clock: Clock }): PlansCommandResult {
  const { repos, catalog, clock } = deps
  const [command, orgId, planKey, ...rest] = args
  const organization = orgId === undefined ? undefined : repos.organizations.get(orgId)
  const noOrganization = { code: 1, out: `no organization has the id "${orgId}"` }
  const audit = (action: string, metadata: Record<string, unknown>) =>
    repos.audit.insert({
      organization_id: orgId!,
      environment_id: null,
      actor_type: 'system',
      actor_id: 'ozan-plans',
      actor_user_id: null,
      action,
      resource_type: 'plan',
      resource_id: (metadata.plan as string) ?? null,
      outcome: 'success',
      ip: null,
      user_agent: null,
      request_id: null,
      metadata: JSON.stringify(metadata),
      created_at: clock.now(),
    })

  switch (command) {
    case 'list': {
      if (args.length !== 1) break
      const counts = new Map(repos.entitlements.assignedPlanKeys().map((a) => [a.plan_key, a.n]))
      const lines = catalog.plans.map((p) => {
        const mark = p.key === catalog.defaultKey ? ' (default: also every organization not assigned)' : ''
        return `${p.key}\t${p.name}\t${counts.get(p.key) ?? 0} assigned${mark}`
      })
      return { code: 0, out: lines.join('\n') }
    }
    case 'show': {
      if (args.length !== 2) break
      if (!organization) return noOrganization
      const row = repos.entitlements.planOf(organization.id)
      const plan = (row && catalog.get(row.plan_key)) || catalog.default
      return { code: 0, out: `${organization.name} (${organization.id}): ${plan.key} (${plan.name})${row ? '' : ', the default'}` }
    }
    case 'assign': {
      if (planKey === undefined || rest.length > 1) break
      if (!organization) return noOrganization
      const plan = catalog.get(planKey)
      if (!plan) return { code: 1, out: `no plan "${planKey}" in ${catalog.source ?? 'the built-in catalog'}: ${catalog.plans.map((p) => p.key).join(', ')}` }
      const note = rest[0]?.slice(0, MAX_NOTE) ?? null
      const previous = repos.entitlements.planOf(organization.id)?.plan_key ?? null
      repos.transaction(() => {
        repos.entitlements.assignPlan({ organization_id: organization.id, plan_key: plan.key, assigned_at: clock.now(), note })
        audit('plan.assigned', { plan: plan.key, previous })
      })
      return { code: 0, out: `${organization.name} (${organization.id}) is on ${plan.key} (${plan.name})` }
    }
    case 'unassign': {
      if (args.length !== 2) break
      if (!organization) return noOrganization
      const previous = repos.entitlements.planOf(organization.id)?.plan_key ?? null
      repos.transaction(() => {
        if (repos.entitlements.unassignPlan(organization.id)) audit('plan.unassigned', { plan: catalog.defaultKey, previous })
      })
      return { code: 0, out: `${organization.name} (${organization.id}) is on the default plan, ${catalog.defaultKey}` }
    }
  }
  return { code: 64, out: PLANS_USAGE }
}
