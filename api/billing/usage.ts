/** GET /billing/usage's view of the repository's sums (db/repos/billing.ts usageSummary). */
import type { UsageSummary } from '../../db/repos/billing.js'
import { BASE_UNITS, type ServiceType, type Unit } from './pricing.js'

export function usageView(u: UsageSummary) {
  return {
    sessions: u.sessions,
    amount_minor: u.amount_minor,
    by_provider: u.byProvider.map((l) => ({
      service_type: l.service_type as ServiceType,
      provider: l.provider,
      unit: l.unit as Unit,
      base_quantity: l.base_quantity,
      amount_minor: l.amount_minor,
      quantity: Math.round((l.base_quantity / BASE_UNITS[l.unit as Unit].perUnit) * 1000) / 1000,
    })),
    by_agent: u.byAgent.map((a) => ({
      workflow_uuid: a.workflow_id,
      workflow_name: a.workflow_name,
      sessions: a.sessions,
      call_ms: a.call_ms,
      amount_minor: a.amount_minor,
    })),
  }
}
