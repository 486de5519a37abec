import jsonLogic from 'json-logic-js'
import type { Definition, WorkflowEdge } from './definition.js'
import { checkExpression } from './expressions.js'

/** What just happened at the node being left, for outcome edges. */
export type Outcome = 'collected' | 'max_attempts' | 'success' | 'failure' | null

/** Outgoing edges per node id, in definition order (the order edges are tried in). */
export function outgoing(def: Definition): Map<string, WorkflowEdge[]> {
  const map = new Map<string, WorkflowEdge[]>()
  for (const e of def.edges) map.set(e.source, [...(map.get(e.source) ?? []), e])
  return map
}

/** Evaluates a JSON Logic condition against the variables; unsafe expressions are false. */
export function holds(expression: unknown, variables: Record<string, unknown>): boolean {
  if (checkExpression(expression).problems.length) return false
  try {
    return Boolean(jsonLogic.apply(expression as jsonLogic.RulesLogic, variables))
  } catch {
    return false
  }
}

/**
 * The first edge that fires: outcome edges for the outcome, expressions that hold, then `always`
 * (an always edge is the fallback wherever it is listed). Intent edges fire only through the LLM.
 */
export function pickEdge(edges: readonly WorkflowEdge[], variables: Record<string, unknown>, outcome: Outcome): WorkflowEdge | undefined {
  const specific = edges.find((e) => {
    const c = e.condition
    if (c.kind === 'outcome') return c.outcome === outcome
    if (c.kind === 'expression') return holds(c.expression, variables)
    return false
  })
  return specific ?? edges.find((e) => e.condition.kind === 'always')
}
