import { dtmfKeys, dtmfProblem } from './dtmf-keys.js'
import type { Definition, EdgeCondition, WorkflowNode } from './definition.js'
import { SYSTEM_VARIABLES } from './definition.js'
import { checkExpression } from './expressions.js'
import { checkTemplate } from './templates.js'

/** One problem, located inside the definition (the API prefixes "body"). */
export interface GraphProblem {
  loc: (string | number)[]
  type: string
  msg: string
}

/** Which edge conditions each node type may leave by. */
const ALLOWED_CONDITIONS: Record<WorkflowNode['type'], EdgeCondition['kind'][]> = {
  start: ['always', 'expression'],
  conversation: ['always', 'expression', 'intent'],
  say: ['always', 'expression'],
  dtmf: ['always', 'expression'],
  collect: ['always', 'expression', 'outcome'],
  condition: ['always', 'expression'],
  tool: ['always', 'expression', 'outcome'],
  knowledge: ['always', 'expression'],
  transfer: ['outcome'],
  end: [],
}

const OUTCOMES_OF: Partial<Record<WorkflowNode['type'], string[]>> = {
  collect: ['collected', 'max_attempts'],
  tool: ['success', 'failure'],
  transfer: ['failure'],
}

/** A node of these types must handle these outcomes: by an edge for each, or by an `always` edge. */
const MUST_HANDLE: Partial<Record<WorkflowNode['type'], string[]>> = { collect: ['collected', 'max_attempts'], tool: ['success', 'failure'] }

/** Nodes that move on by themselves: expressions alone could leave them stuck, so `always` is required. */
const NEEDS_FALLBACK = new Set<WorkflowNode['type']>(['start', 'say', 'dtmf', 'condition', 'knowledge'])

/** What a declared variable's default must be. */
const DEFAULT_FITS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  email: (v) => typeof v === 'string',
  phone: (v) => typeof v === 'string',
  date: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => v !== null && typeof v === 'object',
}

/** The variable type a collected value is stored as, and the declared types that can hold it. */
const COLLECT_FITS: Record<string, string[]> = {
  number: ['number', 'string'],
  date: ['date', 'string'],
  yes_no: ['boolean'],
  choice: ['string'],
  email: ['email', 'string'],
  phone: ['phone', 'string'],
  text: ['string'],
}

/** Checks what the schema cannot: ids, references, exits, reachability, templates, expressions. */
export function validateDefinition(def: Definition): GraphProblem[] {
  const problems: GraphProblem[] = []
  const add = (loc: (string | number)[], type: string, msg: string) => problems.push({ loc, type, msg })

  const declared = new Map<string, string>()
  def.variables.forEach((v, i) => {
    if (declared.has(v.name)) add(['variables', i, 'name'], 'graph.duplicate_variable', `Variable "${v.name}" is declared twice`)
    else if ((SYSTEM_VARIABLES as readonly string[]).includes(v.name) || v.name === 'system')
      add(['variables', i, 'name'], 'graph.reserved_variable', `"${v.name}" is reserved; built-in values are read as {{system.${v.name}}}`)
    // Names every object answers to (constructor, __proto__, toString …) would read the object's machinery.
    else if (v.name in Object.prototype) add(['variables', i, 'name'], 'graph.reserved_variable', `"${v.name}" is reserved: every object has it`)
    declared.set(v.name, v.type)
    if (v.default !== undefined && v.default !== null && !DEFAULT_FITS[v.type]!(v.default))
      add(['variables', i, 'default'], 'graph.variable_type', `The default of "${v.name}" is not a ${v.type}${v.type === 'date' ? ' (YYYY-MM-DD)' : ''}`)
  })
  const knownVariable = (name: string) => declared.has(name) || name === 'system'
  // system.* names are fixed; a misspelt one would silently render empty.
  const badSystemName = (name: string) => (name.startsWith('system') && !(SYSTEM_VARIABLES as readonly string[]).includes(name.slice(7)) ? name : null)

  const nodeIndex = new Map<string, number>()
  def.nodes.forEach((n, i) => {
    if (nodeIndex.has(n.id)) add(['nodes', i, 'id'], 'graph.duplicate_id', `Node id "${n.id}" is used twice`)
    else nodeIndex.set(n.id, i)
  })
  const edgeIds = new Set<string>()
  def.edges.forEach((e, i) => {
    if (edgeIds.has(e.id) || nodeIndex.has(e.id)) add(['edges', i, 'id'], 'graph.duplicate_id', `Edge id "${e.id}" is already used`)
    edgeIds.add(e.id)
  })

  const starts = def.nodes.flatMap((n, i) => (n.type === 'start' ? [i] : []))
  if (starts.length === 0) add(['nodes'], 'graph.start_count', 'The graph needs exactly one start node; it has none')
  for (const i of starts.slice(1)) add(['nodes', i, 'type'], 'graph.start_count', 'The graph needs exactly one start node; this is an extra one')

  // Templates and variable references, node by node.
  const template = (loc: (string | number)[], text: string | undefined) => {
    if (text === undefined) return
    const check = checkTemplate(text)
    if (check.error) add(loc, 'graph.template', `Template does not parse: ${check.error}`)
    for (const v of check.variables) if (!knownVariable(v)) add(loc, 'graph.undeclared_variable', `{{${v}}} is not a declared variable`)
    for (const n of check.names)
      if (badSystemName(n)) add(loc, 'graph.undeclared_variable', `{{${n}}} is not a built-in value (system.${SYSTEM_VARIABLES.join(', system.')})`)
  }
  const assigns = (loc: (string | number)[], name: string, fits?: string[]) => {
    const type = declared.get(name)
    if (type === undefined) add(loc, 'graph.undeclared_variable', `"${name}" is not a declared variable`)
    else if (fits && !fits.includes(type)) add(loc, 'graph.variable_type', `"${name}" is declared ${type}; this value needs ${fits.join(' or ')}`)
  }
  def.nodes.forEach((n, i) => {
    const at = (...rest: (string | number)[]) => ['nodes', i, 'data', ...rest]
    switch (n.type) {
      case 'start':
        if (n.data.first_message?.mode === 'static') template(at('first_message', 'text'), n.data.first_message.text)
        if (n.data.first_message?.mode === 'llm') template(at('first_message', 'prompt'), n.data.first_message.prompt)
        break
      case 'conversation':
        template(at('prompt'), n.data.prompt)
        n.data.extract.forEach((x, j) => assigns(at('extract', j, 'variable'), x.variable))
        break
      case 'say':
        template(at('text'), n.data.text)
        break
      case 'dtmf':
        template(at('digits'), n.data.digits)
        // Fixed keys are checked now; a template's are checked when it is rendered (a runtime warning).
        if (!n.data.digits.includes('{{') && dtmfKeys(n.data.digits) === null) add(at('digits'), 'graph.dtmf_digits', dtmfProblem(n.data.digits))
        break
      case 'collect':
        template(at('prompt'), n.data.prompt)
        template(at('reprompt'), n.data.reprompt)
        assigns(at('variable'), n.data.variable, COLLECT_FITS[n.data.value_type])
        if (n.data.value_type === 'choice' && !n.data.choices) add(at('choices'), 'graph.choices', 'A choice question needs its choices')
        if (n.data.value_type !== 'choice' && n.data.choices) add(at('choices'), 'graph.choices', 'Only a choice question has choices')
        if (n.data.value_type !== 'number' && (n.data.min !== undefined || n.data.max !== undefined))
          add(at('min'), 'graph.range', 'Only a number question has min and max')
        if (n.data.min !== undefined && n.data.max !== undefined && n.data.min > n.data.max) add(at('max'), 'graph.range', 'max must not be below min')
        break
      case 'tool':
        for (const [k, v] of Object.entries(n.data.input)) template(at('input', k), v)
        for (const k of Object.keys(n.data.output)) assigns(at('output', k), k)
        template(at('say_while_running'), n.data.say_while_running)
        break
      case 'knowledge':
        template(at('query'), n.data.query)
        template(at('answer_prompt'), n.data.answer_prompt)
        break
      case 'transfer':
        template(at('message'), n.data.message)
        template(at('summary_prompt'), n.data.summary_prompt)
        break
      case 'end':
        template(at('message'), n.data.message)
        break
    }
  })

  // Edges: endpoints exist, conditions fit their source, expressions are safe and declared.
  const out = new Map<string, { kind: string; outcome?: string }[]>()
  def.edges.forEach((e, i) => {
    const srcIdx = nodeIndex.get(e.source)
    if (srcIdx === undefined) add(['edges', i, 'source'], 'graph.unknown_node', `No node has id "${e.source}"`)
    if (!nodeIndex.has(e.target)) add(['edges', i, 'target'], 'graph.unknown_node', `No node has id "${e.target}"`)
    if (srcIdx === undefined) return
    const source = def.nodes[srcIdx]!
    if (source.type === 'end') {
      add(['edges', i, 'source'], 'graph.end_has_exit', 'An end node ends the conversation; it cannot have outgoing edges')
      return
    }
    const c = e.condition
    if (!ALLOWED_CONDITIONS[source.type].includes(c.kind))
      add(
        ['edges', i, 'condition', 'kind'],
        'graph.condition_kind',
        `A ${source.type} node cannot be left by a "${c.kind}" condition (allowed: ${ALLOWED_CONDITIONS[source.type].join(', ')})`,
      )
    // Only a source that may be left by an outcome is told which outcomes it has (one problem per cause).
    else if (c.kind === 'outcome' && !OUTCOMES_OF[source.type]?.includes(c.outcome))
      add(['edges', i, 'condition', 'outcome'], 'graph.condition_kind', `A ${source.type} node has no "${c.outcome}" outcome`)
    if (c.kind === 'expression') {
      const check = checkExpression(c.expression)
      for (const p of check.problems) add(['edges', i, 'condition', 'expression', ...p.path], 'graph.expression', p.msg)
      for (const v of check.variables)
        if (!knownVariable(v)) add(['edges', i, 'condition', 'expression'], 'graph.undeclared_variable', `"${v}" is not a declared variable`)
      for (const n of check.names)
        if (badSystemName(n)) add(['edges', i, 'condition', 'expression'], 'graph.undeclared_variable', `"${n}" is not a built-in value`)
    }
    const list = out.get(e.source) ?? []
    list.push({ kind: c.kind, ...(c.kind === 'outcome' ? { outcome: c.outcome } : {}) })
    out.set(e.source, list)
  })

  // Every node but end has a way out; branching nodes have a fallback.
  def.nodes.forEach((n, i) => {
    if (n.type === 'end') return
    const exits = out.get(n.id) ?? []
    if (n.type !== 'transfer' && exits.length === 0) {
      add(['nodes', i], 'graph.no_exit', `Node "${n.id}" has no outgoing edge; only end nodes may stop the conversation`)
      return
    }
    for (const must of MUST_HANDLE[n.type] ?? [])
      if (!exits.some((x) => x.kind === 'always' || x.outcome === must))
        add(['nodes', i], 'graph.missing_branch', `Node "${n.id}" needs an edge for the "${must}" outcome (or an "always" edge)`)
    if (NEEDS_FALLBACK.has(n.type) && !exits.some((x) => x.kind === 'always'))
      add(['nodes', i], 'graph.missing_branch', `Node "${n.id}" needs an "always" edge for when no expression holds`)
  })

  // Reachability from the start node and from global nodes (entered by intent from anywhere).
  if (starts.length >= 1) {
    const next = new Map<string, string[]>()
    for (const e of def.edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target])
    const seen = new Set<string>()
    const queue = [def.nodes[starts[0]!]!.id, ...def.nodes.filter((n) => n.global).map((n) => n.id)]
    while (queue.length) {
      const id = queue.pop()!
      if (seen.has(id)) continue
      seen.add(id)
      queue.push(...(next.get(id) ?? []))
    }
    def.nodes.forEach((n, i) => {
      if (!seen.has(n.id)) add(['nodes', i], 'graph.unreachable', `Node "${n.id}" cannot be reached from the start node`)
    })
  }
  return problems
}
