/** GET /billing/usage's sums: usage rows by provider (and unit) and by agent. Pure. */
import type { UsageRow } from '../../db/repos/billing.js'
import type { CostItem } from './meter.js'
import { BASE_UNITS } from './pricing.js'

export function summarizeUsage(rows: readonly (UsageRow & { workflow_name: string | null })[]) {
  const byProvider = new Map<
    string,
    { service_type: CostItem['service_type']; provider: string; unit: CostItem['unit']; base_quantity: number; amount_minor: number }
  >()
  const byAgent = new Map<string, { workflow_uuid: string | null; workflow_name: string | null; sessions: number; call_ms: number; amount_minor: number }>()
  let amount = 0
  for (const r of rows) {
    amount += r.amount_minor
    for (const i of JSON.parse(r.items) as CostItem[]) {
      const key = `${i.service_type}/${i.provider}/${i.unit}`
      const line = byProvider.get(key) ?? { service_type: i.service_type, provider: i.provider, unit: i.unit, base_quantity: 0, amount_minor: 0 }
      line.base_quantity += i.base_quantity
      line.amount_minor += i.amount_minor
      byProvider.set(key, line)
    }
    const agentKey = r.workflow_id ?? ''
    const agent = byAgent.get(agentKey) ?? { workflow_uuid: r.workflow_id, workflow_name: r.workflow_name, sessions: 0, call_ms: 0, amount_minor: 0 }
    agent.sessions++
    agent.call_ms += r.call_ms
    agent.amount_minor += r.amount_minor
    byAgent.set(agentKey, agent)
  }
  return {
    sessions: rows.length,
    amount_minor: amount,
    by_provider: [...byProvider.values()].map((l) => ({ ...l, quantity: Math.round((l.base_quantity / BASE_UNITS[l.unit].perUnit) * 1000) / 1000 })),
    by_agent: [...byAgent.values()].sort((a, b) => b.amount_minor - a.amount_minor),
  }
}
