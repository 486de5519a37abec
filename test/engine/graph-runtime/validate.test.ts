import t from 'tap'
import { Definition, validateDefinition } from '../../../engine/graph-runtime/index.js'
import { at, edgeAt, graph, node, problemsAfter, problemsOf } from '../../helpers/graph-fixture.js'

// The issue: "exactly one start node, edges name existing nodes, no duplicate ids, every non-end
// node has a way out, … unreachable nodes reported", each problem pointed at the node or edge.
// Every case starts from a valid graph and breaks one thing, so the problems listed are exactly
// the ones that break caused.

t.test('the fixture graph is valid', async (t) => {
  t.same(problemsOf(graph()), [])
})

t.test('a graph with no start node is reported at nodes', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes[at('start')] = { id: 'start', type: 'say', data: { text: 'Hi' } }
  })
  t.same(problems, [{ loc: ['nodes'], type: 'graph.start_count' }])
})

t.test('a second start node is reported at its type', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes.push({ id: 'start2', type: 'start' })
    g.edges.push({ id: 'e_start2', source: 'start2', target: 'bye' })
  })
  // Only the first start node counts as the entry, so the extra one is also unreachable.
  t.same(problems, [
    { loc: ['nodes', 6, 'type'], type: 'graph.start_count' },
    { loc: ['nodes', 6], type: 'graph.unreachable' },
  ])
})

t.test('a node id used twice is reported at the second one', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes.push({ id: 'bye', type: 'end' })
  })
  t.same(problems, [{ loc: ['nodes', 6, 'id'], type: 'graph.duplicate_id' }])
})

t.test('an edge id used twice, or equal to a node id, is reported at the edge', async (t) => {
  t.same(
    problemsAfter((g) => g.edges.push({ id: 'e_start', source: 'check', target: 'bye' })),
    [{ loc: ['edges', 7, 'id'], type: 'graph.duplicate_id' }],
  )
  t.same(
    problemsAfter((g) => g.edges.push({ id: 'check', source: 'check', target: 'bye' })),
    [{ loc: ['edges', 7, 'id'], type: 'graph.duplicate_id' }],
    'edges and nodes share one id space',
  )
})

t.test('an edge to or from an unknown node is reported at that end', async (t) => {
  t.same(
    problemsAfter((g) => g.edges.push({ id: 'e_x', source: 'check', target: 'nowhere' })),
    [{ loc: ['edges', 7, 'target'], type: 'graph.unknown_node' }],
  )
  t.same(
    problemsAfter((g) => g.edges.push({ id: 'e_x', source: 'nowhere', target: 'bye' })),
    [{ loc: ['edges', 7, 'source'], type: 'graph.unknown_node' }],
  )
})

t.test('an end node with an outgoing edge is reported at the edge source', async (t) => {
  const problems = problemsAfter((g) => g.edges.push({ id: 'e_after_end', source: 'bye', target: 'start' }))
  t.same(problems, [{ loc: ['edges', 7, 'source'], type: 'graph.end_has_exit' }])
})

t.test('a non-end node with no outgoing edge is reported at the node', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes.push({ id: 'dead_end', type: 'say', data: { text: 'And then?' } })
    g.edges[edgeAt('e_minor')]!.target = 'dead_end'
  })
  t.same(problems, [{ loc: ['nodes', 6], type: 'graph.no_exit' }])
})

t.test('a transfer may have no outgoing edge: the call leaves the agent', async (t) => {
  t.equal(graph().edges.filter((e) => e.source === 'human').length, 0)
  t.same(problemsOf(graph()), [])
})

t.test('a collect without a max_attempts branch is reported at the node', async (t) => {
  t.same(
    problemsAfter((g) => g.edges.splice(edgeAt('e_age_fail'), 1)),
    [{ loc: ['nodes', at('ask_age')], type: 'graph.missing_branch' }],
  )
  t.same(
    problemsAfter((g) => {
      g.edges.splice(edgeAt('e_age_fail'), 1)
      g.edges.push({ id: 'e_age_any', source: 'ask_age', target: 'bye' })
    }),
    [],
    'an always edge is a fallback for every outcome',
  )
})

t.test('a tool without a failure branch is reported at the node', async (t) => {
  const problems = problemsAfter((g) => {
    g.edges.splice(edgeAt('e_book_fail'), 1)
    g.edges.push({ id: 'e_book_yes', source: 'book', target: 'human', condition: { kind: 'expression', expression: { var: 'agreed' } } })
  })
  t.same(problems, [{ loc: ['nodes', at('book')], type: 'graph.missing_branch' }], 'an expression edge is no fallback')
})

t.test('a condition without an always edge is reported at the node', async (t) => {
  const problems = problemsAfter((g) => {
    g.edges[edgeAt('e_minor')]!.condition = { kind: 'expression', expression: { '<': [{ var: 'age' }, 18] } }
  })
  t.same(problems, [{ loc: ['nodes', at('check')], type: 'graph.missing_branch' }])
})

t.test('a condition kind the source node type cannot be left by is reported at condition.kind', async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ['start', { kind: 'intent', description: 'caller is angry' }],
    ['check', { kind: 'outcome', outcome: 'success' }],
    ['human', { kind: 'always' }],
  ]
  for (const [source, condition] of cases) {
    const problems = problemsAfter((g) => g.edges.push({ id: 'e_x', source, target: 'bye', condition }))
    t.same(problems, [{ loc: ['edges', 7, 'condition', 'kind'], type: 'graph.condition_kind' }], `${source} left by ${String(condition.kind)}`)
  }
})

t.test('an outcome the source node type does not have is reported at condition.outcome', async (t) => {
  const cases: [string, string][] = [
    ['book', 'collected'],
    ['ask_age', 'success'],
    ['human', 'max_attempts'],
  ]
  for (const [source, outcome] of cases) {
    const problems = problemsAfter((g) => g.edges.push({ id: 'e_x', source, target: 'bye', condition: { kind: 'outcome', outcome } }))
    t.same(problems, [{ loc: ['edges', 7, 'condition', 'outcome'], type: 'graph.condition_kind' }], `${source} has no ${outcome}`)
  }
  t.same(
    problemsAfter((g) => g.edges.push({ id: 'e_x', source: 'human', target: 'bye', condition: { kind: 'outcome', outcome: 'failure' } })),
    [],
    'a transfer may be left by its failure outcome',
  )
})

t.test('a node no path reaches from the start is reported at the node', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes.push({ id: 'island', type: 'say', data: { text: 'Nobody hears this' } })
    g.edges.push({ id: 'e_island', source: 'island', target: 'bye' })
  })
  t.same(problems, [{ loc: ['nodes', 6], type: 'graph.unreachable' }])
})

t.test('a global node and what follows it count as reachable from anywhere', async (t) => {
  const g = graph()
  g.nodes.push({ id: 'faq', type: 'knowledge', global: { intent: 'The caller asks about opening hours' }, data: {} })
  g.nodes.push({ id: 'after_faq', type: 'say', data: { text: 'Anything else?' } })
  g.edges.push({ id: 'e_faq', source: 'faq', target: 'after_faq' }, { id: 'e_after_faq', source: 'after_faq', target: 'bye' })
  t.same(problemsOf(g), [])
  delete node(g, 'faq').global
  t.same(
    problemsOf(g),
    [
      { loc: ['nodes', 6], type: 'graph.unreachable' },
      { loc: ['nodes', 7], type: 'graph.unreachable' },
    ],
    'without the intent both are islands',
  )
})

t.test('every problem carries a message naming what is wrong', async (t) => {
  const g = graph()
  g.edges.push({ id: 'e_x', source: 'check', target: 'nowhere' })
  const [problem] = validateDefinition(Definition.parse(g))
  t.match(problem, { loc: ['edges', 7, 'target'], type: 'graph.unknown_node', msg: /"nowhere"/ })
})

t.test('the schema itself refuses ids that are not identifiers and unknown node types', async (t) => {
  const bad = graph()
  bad.nodes[0]!.id = '1st'
  t.notOk(Definition.safeParse(bad).success, 'an id starting with a digit')
  const unknown = graph()
  unknown.nodes.push({ id: 'x', type: 'dance' })
  const r = Definition.safeParse(unknown)
  t.notOk(r.success)
  t.same(r.error?.issues[0]?.path, ['nodes', 6, 'type'])
})
