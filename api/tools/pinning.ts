/**
 * Publishing pins library tools: every `{ tool_id }` a graph names without a version gets the
 * version the tool has now, written into the published definition, so the published agent keeps
 * the tool as it was. Walks the stored JSON as it is (no re-parse: a graph published without
 * unpinned tools goes out byte for byte as it was saved).
 */

type Loc = (string | number)[]
export interface PinProblem {
  loc: Loc
  msg: string
  input: unknown
}

/** The version a reference runs now (its own version, checked, or the newest); null: no such tool. */
export type VersionOf = (ref: { tool_id: string; version?: number }) => number | null

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

export function pinLibraryTools(definitionJson: string, versionOf: VersionOf, at: Loc): { json: string; problems: PinProblem[] } {
  const definition: unknown = JSON.parse(definitionJson)
  const problems: PinProblem[] = []
  let pinned = false
  const pin = (ref: unknown, loc: Loc) => {
    if (!isObject(ref) || typeof ref.tool_id !== 'string') return
    const version = versionOf({ tool_id: ref.tool_id, ...(typeof ref.version === 'number' && { version: ref.version }) })
    if (version === null) return void problems.push({ loc: [...loc, 'tool_id'], msg: 'The organization has no such tool (or version)', input: ref.tool_id })
    if (ref.version === undefined) {
      ref.version = version
      pinned = true
    }
  }
  const nodes = isObject(definition) && Array.isArray(definition.nodes) ? definition.nodes : []
  nodes.forEach((node: unknown, i) => {
    if (!isObject(node) || !isObject(node.data)) return
    const loc = [...at, 'nodes', i, 'data']
    if (node.type === 'conversation' && Array.isArray(node.data.tools)) node.data.tools.forEach((ref, j) => pin(ref, [...loc, 'tools', j]))
    if (node.type === 'tool') pin(node.data.action, [...loc, 'action'])
  })
  return { json: pinned ? JSON.stringify(definition) : definitionJson, problems }
}
