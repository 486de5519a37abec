import t from 'tap'
import { at, edgeAt, node, problemsAfter } from '../../helpers/graph-fixture.js'

// The issue: "condition expressions parse, referenced variables are declared", with pointers.
// These cases cover variables, the templates that read them and the expressions that test them.

const EDGE = edgeAt('e_adult')
const expression = (expr: unknown) =>
  problemsAfter((g) => {
    g.edges[EDGE]!.condition = { kind: 'expression', expression: expr }
  })

t.test('a variable declared twice is reported at the second name', async (t) => {
  const problems = problemsAfter((g) => g.variables.push({ name: 'age', type: 'string' }))
  t.same(problems, [{ loc: ['variables', 4, 'name'], type: 'graph.duplicate_variable' }])
})

t.test('a variable named like a built-in is reserved', async (t) => {
  for (const name of ['caller_number', 'last_user_message', 'system']) {
    const problems = problemsAfter((g) => g.variables.push({ name, type: 'string' }))
    t.same(problems, [{ loc: ['variables', 4, 'name'], type: 'graph.reserved_variable' }], name)
  }
})

t.test('an undeclared variable in a template is reported at the field', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'bye').data!.message = 'Bye {{nickname}}')),
    [{ loc: ['nodes', at('bye'), 'data', 'message'], type: 'graph.undeclared_variable' }],
  )
  t.same(
    problemsAfter((g) => (node(g, 'start').data!.first_message.text = 'Hi {{{nickname}}}')),
    [{ loc: ['nodes', 0, 'data', 'first_message', 'text'], type: 'graph.undeclared_variable' }],
    'triple mustaches read variables too',
  )
  t.same(
    problemsAfter((g) => (node(g, 'book').data!.input.when = '{{slot.start}}')),
    [{ loc: ['nodes', at('book'), 'data', 'input', 'when'], type: 'graph.undeclared_variable' }],
    'a dotted name needs its first segment declared',
  )
})

t.test('system values are readable without declaring them', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'bye').data!.message = 'We will call {{system.caller_number}} back')),
    [],
  )
  t.same(expression({ '==': [{ var: 'system.channel' }, 'phone'] }), [])
})

t.test('names inside a section belong to the section item, not to the variables', async (t) => {
  const problems = problemsAfter((g) => {
    g.variables.push({ name: 'order', type: 'object' })
    node(g, 'bye').data!.message = '{{#order}}Your {{item}} costs {{price}}.{{/order}}'
  })
  t.same(problems, [])
  t.same(
    problemsAfter((g) => (node(g, 'bye').data!.message = '{{#order}}Your {{item}}{{/order}}')),
    [{ loc: ['nodes', at('bye'), 'data', 'message'], type: 'graph.undeclared_variable' }],
    'the section name itself must be declared',
  )
})

t.test('a template that does not parse is reported at the field', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'ask_age').data!.prompt = 'How old {{#name}} are you?')),
    [{ loc: ['nodes', at('ask_age'), 'data', 'prompt'], type: 'graph.template' }],
  )
})

t.test('a partial is refused: templates cannot pull in other templates', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'ask_age').data!.reprompt = 'Sorry? {{> legal_notice}}')),
    [{ loc: ['nodes', at('ask_age'), 'data', 'reprompt'], type: 'graph.template' }],
  )
})

t.test('a collect into an undeclared variable is reported at data.variable', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'ask_age').data!.variable = 'years')),
    [{ loc: ['nodes', at('ask_age'), 'data', 'variable'], type: 'graph.undeclared_variable' }],
  )
})

t.test('a collect whose value type the declared variable cannot hold is reported at data.variable', async (t) => {
  const cases: [string, string][] = [
    ['yes_no', 'name'], // a yes/no answer is a boolean, not a string
    ['number', 'agreed'],
    ['text', 'age'],
  ]
  for (const [valueType, variable] of cases) {
    const problems = problemsAfter((g) => Object.assign(node(g, 'ask_age').data!, { value_type: valueType, variable }))
    t.same(problems, [{ loc: ['nodes', at('ask_age'), 'data', 'variable'], type: 'graph.variable_type' }], `${valueType} into ${variable}`)
  }
  t.same(
    problemsAfter((g) => Object.assign(node(g, 'ask_age').data!, { value_type: 'yes_no', variable: 'agreed' })),
    [],
    'yes_no into a boolean fits',
  )
  t.same(
    problemsAfter((g) => Object.assign(node(g, 'ask_age').data!, { value_type: 'number', variable: 'name' })),
    [],
    'a number may be kept as a string',
  )
})

t.test('choices belong to choice questions and choice questions need them', async (t) => {
  const choicesAt = ['nodes', at('ask_age'), 'data', 'choices']
  t.same(
    problemsAfter((g) => Object.assign(node(g, 'ask_age').data!, { value_type: 'choice', variable: 'name' })),
    [{ loc: choicesAt, type: 'graph.choices' }],
  )
  t.same(
    problemsAfter((g) => (node(g, 'ask_age').data!.choices = ['young', 'old'])),
    [{ loc: choicesAt, type: 'graph.choices' }],
  )
  t.same(
    problemsAfter((g) => Object.assign(node(g, 'ask_age').data!, { value_type: 'choice', variable: 'name', choices: ['red', 'blue'] })),
    [],
  )
})

t.test('an extract into an undeclared variable is reported at its entry', async (t) => {
  const problems = problemsAfter((g) => {
    g.nodes.push({
      id: 'chat',
      type: 'conversation',
      global: { intent: 'Small talk' },
      data: {
        prompt: 'Chat with {{name}}',
        extract: [
          { variable: 'name', description: 'their name' },
          { variable: 'mood', description: 'how they feel' },
        ],
      },
    })
    g.edges.push({ id: 'e_chat', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'done chatting' } })
  })
  t.same(problems, [{ loc: ['nodes', 6, 'data', 'extract', 1, 'variable'], type: 'graph.undeclared_variable' }])
})

t.test('a tool output into an undeclared variable is reported at its key', async (t) => {
  t.same(
    problemsAfter((g) => (node(g, 'book').data!.output.confirmation = 'booking.code')),
    [{ loc: ['nodes', at('book'), 'data', 'output', 'confirmation'], type: 'graph.undeclared_variable' }],
  )
})

t.test('an undeclared variable in an expression is reported at the expression', async (t) => {
  t.same(expression({ '>=': [{ var: 'height' }, 150] }), [{ loc: ['edges', EDGE, 'condition', 'expression'], type: 'graph.undeclared_variable' }])
  t.same(expression({ '>=': [{ var: ['age', 0] }, 18] }), [], 'var with a default names the variable first')
})

t.test('vars inside some/all/none read the current item, not variables', async (t) => {
  const problems = problemsAfter((g) => {
    g.variables.push({ name: 'orders', type: 'object' })
    g.edges[EDGE]!.condition = {
      kind: 'expression',
      expression: { and: [{ some: [{ var: 'orders' }, { '>': [{ var: 'total' }, 100] }] }, { all: [{ var: 'orders' }, { var: 'paid' }] }] },
    }
  })
  t.same(problems, [])
  t.same(
    expression({ some: [{ var: 'invoices' }, { var: 'paid' }] }),
    [{ loc: ['edges', EDGE, 'condition', 'expression'], type: 'graph.undeclared_variable' }],
    'the list an iterator walks is a variable',
  )
})

t.test('a forbidden operator is reported at its key', async (t) => {
  t.same(expression({ method: [{ var: 'name' }, 'toUpperCase'] }), [{ loc: ['edges', EDGE, 'condition', 'expression', 'method'], type: 'graph.expression' }])
  t.same(expression({ and: [true, { log: { var: 'age' } }] }), [{ loc: ['edges', EDGE, 'condition', 'expression', 'and', 1, 'log'], type: 'graph.expression' }])
})

t.test('an operation object without exactly one operator is malformed', async (t) => {
  t.same(expression({}), [{ loc: ['edges', EDGE, 'condition', 'expression'], type: 'graph.expression' }])
  t.same(expression({ or: [{ '==': [1, 1], '!=': [1, 2] }, true] }), [{ loc: ['edges', EDGE, 'condition', 'expression', 'or', 0], type: 'graph.expression' }])
})

t.test('an expression nested too deep is reported where it goes too deep', async (t) => {
  let deep: unknown = { var: 'agreed' }
  for (let i = 0; i < 40; i++) deep = { '!': deep }
  const problems = expression(deep)
  t.equal(problems.length, 1)
  t.same(problems[0], { loc: ['edges', EDGE, 'condition', 'expression', ...Array(33).fill('!')], type: 'graph.expression' })
})

t.test('a misspelt system name, a mistyped default and number bounds are reported', async (t) => {
  const { Definition, validateDefinition } = await import('../../../engine/graph-runtime/index.js')
  const problems = validateDefinition(
    Definition.parse({
      variables: [
        { name: 'n', type: 'number', default: 'abc' },
        { name: 'd', type: 'date', default: '25.12.2026' },
        { name: 'ok', type: 'boolean', default: false },
      ],
      nodes: [
        { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'From {{system.caler_number}}' } } },
        { id: 'ask', type: 'collect', data: { variable: 'n', value_type: 'number', prompt: 'Rate 1-5', min: 5, max: 1 } },
        { id: 'yn', type: 'collect', data: { variable: 'ok', value_type: 'yes_no', prompt: 'OK?', max: 3 } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'ask' },
        { id: 'b', source: 'ask', target: 'yn' },
        { id: 'c', source: 'yn', target: 'end', condition: { kind: 'expression', expression: { missing: ['system.nope', 'n'] } } },
        { id: 'd', source: 'yn', target: 'end', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      ],
    }),
  )
  t.same(
    problems.map((p) => [p.type, p.loc.join('.')]),
    [
      ['graph.variable_type', 'variables.0.default'],
      ['graph.variable_type', 'variables.1.default'],
      ['graph.undeclared_variable', 'nodes.0.data.first_message.text'],
      ['graph.range', 'nodes.1.data.max'],
      ['graph.range', 'nodes.2.data.min'],
      ['graph.undeclared_variable', 'edges.2.condition.expression'],
      ['graph.missing_branch', 'nodes.2'],
    ],
  )
})
