// Shared by the graph-runtime tests (not a test file: tap includes only *.test.ts).
import { Definition, validateDefinition } from '../../engine/graph-runtime/index.js'

/** A graph in its wire form, loose enough for tests to break it in any way the schema allows. */
export interface LooseGraph {
  variables: Record<string, unknown>[]
  nodes: { id: string; type: string; data?: Record<string, any>; global?: { intent: string } }[] // eslint-disable-line @typescript-eslint/no-explicit-any
  edges: { id: string; source: string; target: string; condition?: Record<string, unknown> }[]
}

/**
 * A valid graph using every branching rule: a collect with both outcomes, a condition with an
 * expression and its `always` fallback, a tool with success and failure, and a global transfer
 * that no edge enters.
 */
export const VALID_GRAPH: LooseGraph = {
  variables: [
    { name: 'name', type: 'string' },
    { name: 'age', type: 'number' },
    { name: 'booking_id', type: 'string' },
    { name: 'agreed', type: 'boolean' },
  ],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello {{name}}' } } },
    { id: 'ask_age', type: 'collect', data: { variable: 'age', value_type: 'number', prompt: 'How old are you?' } },
    { id: 'check', type: 'condition' },
    {
      id: 'book',
      type: 'tool',
      data: { action: { integration: 'calendar', action: 'create_booking' }, input: { who: '{{name}}' }, output: { booking_id: 'booking.id' } },
    },
    { id: 'bye', type: 'end', data: { message: 'Goodbye {{name}}' } },
    { id: 'human', type: 'transfer', global: { intent: 'The caller wants to talk to a human' }, data: { target: '+905551112233' } },
  ],
  edges: [
    { id: 'e_start', source: 'start', target: 'ask_age' },
    { id: 'e_age', source: 'ask_age', target: 'check', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e_age_fail', source: 'ask_age', target: 'bye', condition: { kind: 'outcome', outcome: 'max_attempts' } },
    { id: 'e_adult', source: 'check', target: 'book', condition: { kind: 'expression', expression: { '>=': [{ var: 'age' }, 18] } } },
    { id: 'e_minor', source: 'check', target: 'bye' },
    { id: 'e_booked', source: 'book', target: 'bye', condition: { kind: 'outcome', outcome: 'success' } },
    { id: 'e_book_fail', source: 'book', target: 'human', condition: { kind: 'outcome', outcome: 'failure' } },
  ],
}

export const graph = (): LooseGraph => structuredClone(VALID_GRAPH)

/** Index of a node of VALID_GRAPH by id (the pointers name positions). */
export const at = (id: string): number => {
  const i = VALID_GRAPH.nodes.findIndex((n) => n.id === id)
  if (i < 0) throw new Error(`no node ${id}`)
  return i
}
export const edgeAt = (id: string): number => {
  const i = VALID_GRAPH.edges.findIndex((e) => e.id === id)
  if (i < 0) throw new Error(`no edge ${id}`)
  return i
}

/** The node of a graph by id, for editing its data in place. */
export const node = (g: LooseGraph, id: string) => {
  const n = g.nodes.find((x) => x.id === id)
  if (!n) throw new Error(`no node ${id}`)
  return n
}

/** Parses (the schema must accept it) and validates; returns each problem's pointer and type. */
export function problemsOf(g: LooseGraph): { loc: (string | number)[]; type: string }[] {
  return validateDefinition(Definition.parse(g)).map(({ loc, type }) => ({ loc, type }))
}

/** The problems of VALID_GRAPH after an edit. */
export function problemsAfter(edit: (g: LooseGraph) => void) {
  const g = graph()
  edit(g)
  return problemsOf(g)
}
