import { isLibraryRef, type LibraryToolRef, type WorkflowNode } from './definition.js'
import type { Outcome } from './edges.js'
import { boundOutcome } from './guard.js'
import type { RuntimeEvent, ToolOutcome, ToolRunner } from './io.js'

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
  const ref = p.node.data.action
  const outcome = boundOutcome(isLibraryRef(ref) ? await runLibrary(p, ref) : await runAction(p, ref))
  p.signal.throwIfAborted()
  p.emit({ type: 'tool_result', call_id: p.callId, ok: outcome.ok, ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }) })
  if (!outcome.ok) return 'failure'
  for (const [variable, path] of Object.entries(p.node.data.output)) {
    const value = valueAt(outcome.output, path)
    if (value !== undefined) p.setVariable(variable, value)
  }
  return 'success'
}

async function runAction(p: ToolNodeParams, ref: { integration: string; action: string }): Promise<ToolOutcome> {
  const { integration, action } = ref
  p.emit({ type: 'tool_call', call_id: p.callId, integration, action, input: p.input })
  return p.tools ? await p.tools.run({ integration, action }, p.input, p.signal) : { ok: false, error: 'No tool runner is configured' }
}

/** A library tool: its pinned (or newest) version, run with the node's rendered input as arguments. */
async function runLibrary(p: ToolNodeParams, ref: LibraryToolRef): Promise<ToolOutcome> {
  const tool = p.tools?.resolve?.(ref)
  // Nothing ran, so no tool_call is announced: the failure branch and tool_result say why.
  if (!tool || !p.tools?.runLibrary) {
    return { ok: false, error: `unknown_tool: the organization has no tool ${ref.tool_id}` }
  }
  const called = { id: tool.id, name: tool.name, version: tool.version }
  p.emit({ type: 'tool_call', call_id: p.callId, integration: tool.integration, action: tool.action, input: p.input, tool: called })
  return p.tools.runLibrary(tool, p.input, p.signal)
}

/** The value at a dotted path of an action's result ("booking.uid"); undefined where the path leads nowhere. */
function valueAt(output: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), output)
}
