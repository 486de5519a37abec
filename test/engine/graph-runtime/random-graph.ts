// Random agent graphs and random outside answers for the property test (not a test file: tap
// includes only *.test.ts). Everything is drawn from one seeded PRNG, so a seed replays a failure.
import {
  COLLECT_TYPES,
  jsonExcess,
  LIMITS,
  MAX_JSON_DEPTH,
  SYSTEM_VARIABLES,
  type LlmChunk,
  type LlmClient,
  type LlmRequest,
  type RuntimeIO,
  type ToolOutcome,
} from '../../../engine/graph-runtime/index.js'

/** mulberry32: small, fast, and good enough to spread test cases. */
export class Rng {
  private state: number
  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let x = this.state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Variable = { name: string; type: string; default?: Json }

const WORDS = [
  'yes',
  'no',
  'evet',
  'hayır',
  'two',
  'iki bin',
  '42',
  '-7.5',
  'ali@example.com',
  '+905551112233',
  '2026-12-01',
  'tomorrow',
  'Ayşe 😀',
  'ğüşiöç',
  '',
  ' ',
  '{{x}}',
  '</s>',
  '\u0000',
  'x'.repeat(300),
]

export function randomString(r: Rng): string {
  return Array.from({ length: r.int(0, 3) }, () => r.pick(WORDS)).join(' ')
}

/** A JSON value nesting at most `depth` containers, and sometimes exactly that many. */
export function randomJson(r: Rng, depth: number): Json {
  if (depth > 0 && r.chance(0.1)) {
    let v: Json = r.pick([1, 'deep', null, true])
    for (let i = 0; i < depth; i++) v = r.chance(0.5) ? { k: v } : [v]
    return v
  }
  if (depth === 0 || r.chance(0.4))
    return r.pick<() => Json>([() => null, () => r.chance(0.5), () => r.int(-1e6, 1e6) / r.pick([1, 7, 1000]), () => randomString(r)])()
  if (r.chance(0.5)) return Array.from({ length: r.int(0, 4) }, () => randomJson(r, depth - 1))
  return Object.fromEntries(
    Array.from({ length: r.int(0, 4) }, (_, i) => [r.pick(['a', 'b', 'items', 'id', `k${i}`, 'ş', '__proto__']), randomJson(r, depth - 1)]),
  )
}

function defaultFor(r: Rng, type: string): Json | undefined {
  if (r.chance(0.3)) return undefined
  switch (type) {
    case 'number':
      return r.int(-100, 100)
    case 'boolean':
      return r.chance(0.5)
    case 'date':
      return '2026-01-31'
    case 'object': {
      if (r.chance(0.5)) return Array.from({ length: r.int(0, 20) }, (_, i) => (r.chance(0.8) ? i : randomJson(r, 2)))
      // Nested up to the depth limit, but a wide tree that deep can pass the size limit: the
      // generator makes only values the schema accepts, halving the depth until one fits.
      for (let depth = r.int(1, MAX_JSON_DEPTH); ; depth = Math.max(1, Math.floor(depth / 2))) {
        const raw = randomJson(r, depth)
        const value = raw !== null && typeof raw === 'object' ? raw : { value: raw }
        if (jsonExcess(value, { maxDepth: MAX_JSON_DEPTH, maxBytes: LIMITS.defaultBytes }) === null) return value
      }
    }
    default:
      return randomString(r)
  }
}

function template(r: Rng, vars: Variable[]): string {
  const parts: string[] = []
  for (let i = r.int(1, 4); i > 0; i--) {
    const v = vars.length && r.chance(0.6) ? r.pick(vars).name : null
    const roll = r.next()
    if (v && roll < 0.4) parts.push(`{{${v}}}`)
    else if (v && roll < 0.55) parts.push(`{{#${v}}}[{{.}}{{#${v}}}{{.}}{{/${v}}}]{{/${v}}}`)
    else if (v && roll < 0.65) parts.push(`{{^${v}}}none{{/${v}}}{{&${v}}}{{${v}.items.length}}`)
    else if (roll < 0.8) parts.push(`{{system.${r.pick(SYSTEM_VARIABLES)}}}`)
    else parts.push(randomString(r).replace(/[{}]/g, '') || 'Hello')
  }
  return parts.join(' ').slice(0, LIMITS.templateChars) || 'Hi'
}

const OPS = ['==', '!=', '>', '<', '!', '!!', 'and', 'or', 'in', 'cat', '+', 'if', 'some', 'map', 'merge', 'missing'] as const

function expression(r: Rng, vars: Variable[], depth: number): Json {
  if (depth <= 0 || r.chance(0.3)) return vars.length && r.chance(0.6) ? { var: r.pick(vars).name } : r.pick<Json>([1, 'a', true, null, [1, 2]])
  const op = r.pick(OPS)
  if (op === '!' || op === '!!') return { [op]: expression(r, vars, depth - 1) }
  if (op === 'missing') return { missing: vars.map((v) => v.name).slice(0, 2) }
  if (op === 'some' || op === 'map') return { [op]: [expression(r, vars, depth - 1), { '==': [{ var: '' }, 1] }] }
  return { [op]: Array.from({ length: r.int(1, 3) }, () => expression(r, vars, depth - 1)) }
}

type Node = { id: string; type: string; data?: Record<string, unknown>; global?: { intent: string } }
type Edge = { id: string; source: string; target: string; condition?: Record<string, unknown> }

/** A definition meant to be valid: a chain from start to an end node, with random extra edges. */
export function randomDefinition(r: Rng): { variables: Variable[]; nodes: Node[]; edges: Edge[] } {
  const types = ['string', 'number', 'boolean', 'date', 'email', 'phone', 'object']
  const variables: Variable[] = Array.from({ length: r.int(0, 5) }, (_, i) => {
    const type = r.pick(types)
    const d = defaultFor(r, type)
    return { name: `v${i}`, type, ...(d !== undefined && { default: d }) }
  })
  const middle = ['say', 'collect', 'condition', 'tool', 'knowledge', 'conversation', 'transfer']
  const nodes: Node[] = [
    {
      id: 'start',
      type: 'start',
      data: r.chance(0.7)
        ? { first_message: r.chance(0.7) ? { mode: 'static', text: template(r, variables) } : { mode: 'llm', prompt: template(r, variables) } }
        : {},
    },
  ]
  for (let i = r.int(0, 6); i > 0; i--) nodes.push(middleNode(r, r.pick(middle), `n${nodes.length}`, variables))
  nodes.push({ id: 'end', type: 'end', data: { message: template(r, variables), disposition: r.pick(['completed', 'booked']) } })

  const edges: Edge[] = []
  const edge = (source: string, target: string, condition?: Record<string, unknown>) =>
    edges.push({ id: `e${edges.length}`, source, target, ...(condition && { condition }) })
  nodes.forEach((n, i) => {
    const next = nodes[i + 1]
    if (!next) return
    const later = () => r.pick(nodes.slice(1)).id
    const cond = () => ({ kind: 'expression', expression: expression(r, variables, r.int(1, 5)) })
    if (r.chance(0.4) && n.type !== 'transfer') edge(n.id, later(), cond())
    switch (n.type) {
      case 'collect':
        if (r.chance(0.5)) edge(n.id, next.id)
        else edge(n.id, next.id, { kind: 'outcome', outcome: 'collected' }), edge(n.id, later(), { kind: 'outcome', outcome: 'max_attempts' })
        break
      case 'tool':
        if (r.chance(0.5)) edge(n.id, next.id)
        else edge(n.id, next.id, { kind: 'outcome', outcome: 'success' }), edge(n.id, later(), { kind: 'outcome', outcome: 'failure' })
        break
      case 'conversation':
        edge(n.id, next.id, r.chance(0.6) ? { kind: 'intent', description: 'The caller wants to move on' } : undefined)
        break
      case 'transfer':
        // Left only when the transfer fails (one that works ends the session).
        edge(n.id, next.id, { kind: 'outcome', outcome: 'failure' })
        break
      default:
        edge(n.id, next.id)
    }
  })
  if (nodes.length > 2 && r.chance(0.3)) nodes[r.int(1, nodes.length - 2)]!.global = { intent: 'The caller asks for this' }
  return { variables, nodes, edges }
}

function middleNode(r: Rng, type: string, id: string, vars: Variable[]): Node {
  const assignable = (fits: string[]) => vars.filter((v) => fits.includes(v.type))
  switch (type) {
    case 'say':
      return { id, type, data: { text: template(r, vars) } }
    case 'condition':
      return { id, type }
    case 'knowledge':
      return { id, type, data: { query: template(r, vars), top_k: r.int(1, 5), ...(r.chance(0.5) && { answer_prompt: template(r, vars) }) } }
    case 'transfer':
      return { id, type, data: { target: '+905551112233', mode: r.pick(['cold', 'warm']), message: template(r, vars) } }
    case 'tool': {
      const outputs = assignable(['string', 'number', 'boolean', 'object', 'email', 'phone', 'date'])
      return {
        id,
        type,
        data: {
          action: { integration: 'shop', action: r.pick(['lookup', 'book']) },
          input: { q: template(r, vars) },
          output: Object.fromEntries(outputs.slice(0, 2).map((v) => [v.name, r.pick(['data', 'data.items', 'x.y.z'])])),
          ...(r.chance(0.3) && { say_while_running: template(r, vars) }),
        },
      }
    }
    case 'collect': {
      const value_type = r.pick(COLLECT_TYPES)
      const fits: Record<string, string[]> = {
        number: ['number', 'string'],
        date: ['date', 'string'],
        yes_no: ['boolean'],
        choice: ['string'],
        email: ['email', 'string'],
        phone: ['phone', 'string'],
        text: ['string'],
      }
      const target = assignable(fits[value_type]!)
      if (!target.length) return { id, type: 'say', data: { text: template(r, vars) } }
      return {
        id,
        type,
        data: {
          variable: r.pick(target).name,
          value_type,
          prompt: template(r, vars),
          max_attempts: r.int(1, 3),
          ...(value_type === 'choice' && { choices: ['tea', 'coffee', 'çay'] }),
          ...(value_type === 'number' && r.chance(0.5) && { min: 0, max: 100 }),
        },
      }
    }
    default: {
      const extract = vars.filter(() => r.chance(0.5)).map((v) => ({ variable: v.name, description: `The ${v.name}` }))
      return {
        id,
        type: 'conversation',
        data: {
          prompt: template(r, vars),
          tools: r.chance(0.5) ? [{ integration: 'shop', action: 'lookup' }] : [],
          extract,
          knowledge_base: { enabled: r.chance(0.3), top_k: 2 },
        },
      }
    }
  }
}

const nestedText = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

/** An LLM stand-in that answers every call with random text and random calls of the tools it was offered. */
export class RandomLlm implements LlmClient {
  calls = 0
  constructor(private readonly rng: Rng) {}
  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    this.calls++
    const r = this.rng
    for (let i = r.int(0, 3); i > 0; i--) {
      signal.throwIfAborted()
      if (request.tools.length && r.chance(0.5)) {
        const tool = r.pick(request.tools)
        const args = r.pick<() => string>([
          () => JSON.stringify({ value: randomString(r) }),
          () => JSON.stringify(Object.fromEntries(Object.keys((tool.parameters.properties as object | undefined) ?? {}).map((k) => [k, randomJson(r, 3)]))),
          () => `{"q":${nestedText(r.int(1, 5000))}}`,
          () => 'not json',
          () => '',
        ])()
        yield { type: 'tool_call', id: `c${this.calls}_${i}`, name: r.chance(0.9) ? tool.name : 'made_up_tool', arguments: args }
      } else yield { type: 'text', text: randomString(r) || 'OK.' }
    }
    if (r.chance(0.5)) yield { type: 'usage', model: 'random', prompt_tokens: r.int(0, 100), completion_tokens: r.int(0, 100) }
  }
}

export function randomIo(r: Rng, withLlm: boolean): RuntimeIO {
  const outcome = (): ToolOutcome =>
    r.pick<() => ToolOutcome>([
      () => ({ ok: true, output: { data: randomJson(r, r.int(0, MAX_JSON_DEPTH - 1)) } }),
      () => ({ ok: true, output: JSON.parse(`{"data":${nestedText(r.int(1, 20_000))}}`) }),
      () => ({ ok: true, output: undefined }),
      () => ({ ok: false, error: randomString(r) }),
    ])()
  return {
    ...(withLlm && { llm: new RandomLlm(r) }),
    tools: {
      run: async () => outcome(),
      describe: () => (r.chance(0.5) ? { description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } } : undefined),
    },
    knowledge: {
      search: async (_q, topK) =>
        Array.from({ length: r.int(0, topK) }, (_, i) => ({ document_id: 'd', chunk_id: `c${i}`, text: randomString(r), score: r.next() })),
    },
    now: () => new Date(Date.UTC(2026, 0, 1 + r.int(0, 365), r.int(0, 23))),
  }
}
