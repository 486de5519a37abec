import type { WorkflowNode } from './definition.js'
import type { Outcome } from './edges.js'
import { boundOutcome } from './guard.js'
import type { RuntimeEvent, ToolRunner } from './io.js'

export interface ToolNodeParams {
  node: Extract<WorkflowNode, { type: 'tool' }>
  /** The action's input, its templates already rendered. */
  input: Record<string, unknown>
  callId: string
  tools: ToolRunner | undefined
  emit: (e: RuntimeEvent) => void
  signal: AbortSignal
  /** false: the value was beyond the bounds of a variable and was not stored. */
  setVariable: (name: string, value: unknown) => boolean
}

/**
 * A tool node's work: runs its action and copies the fields its `output` map names into
 * variables. The outcome (success or failure) picks the edge the node leaves by.
 */
export async function runToolNode(p: ToolNodeParams): Promise<Outcome> {
  const { integration, action } = p.node.data.action
  p.emit({ type: 'tool_call', call_id: p.callId, integration, action, input: p.input })
  const outcome = boundOutcome(p.tools ? await p.tools.run({ integration, action }, p.input, p.signal) : { ok: false, error: 'No tool runner is configured' })
  p.signal.throwIfAborted()
  p.emit({ type: 'tool_result', call_id: p.callId, ok: outcome.ok, ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }) })
  if (!outcome.ok) return 'failure'
  for (const [variable, path] of Object.entries(p.node.data.output)) {
    const value = valueAt(outcome.output, path)
    if (value !== undefined) p.setVariable(variable, value)
  }
  return 'success'
}

/** The value at a dotted path of an action's result ("booking.uid"); undefined where the path leads nowhere. */
function valueAt(output: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), output)
}
