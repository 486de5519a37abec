import t from 'tap'
import { checkExpression, OPERATORS } from '../../../engine/graph-runtime/index.js'

// Edge conditions are JSON Logic: data, never code. checkExpression is the gate: allow-listed
// operators only, one operator per operation, bounded size and depth; and it names every
// variable an expression reads so the validator can demand their declarations.

const vars = (expr: unknown) => [...checkExpression(expr).variables].sort()

t.test('a well-formed expression has no problems and names the variables it reads', async (t) => {
  const check = checkExpression({ and: [{ '>=': [{ var: 'age' }, 18] }, { in: [{ var: 'city' }, ['Istanbul', 'Ankara']] }] })
  t.same(check.problems, [])
  t.same([...check.variables].sort(), ['age', 'city'])
})

t.test('a dotted or defaulted var names its first segment', async (t) => {
  t.same(vars({ '>': [{ var: 'order.total' }, 100] }), ['order'])
  t.same(vars({ var: ['customer.name', 'friend'] }), ['customer'])
  t.same(vars({ var: '' }), [], 'the empty name (the whole data) is no variable')
})

t.test('plain values are valid expressions that read nothing', async (t) => {
  for (const v of [true, 0, 'yes', null, [1, 2]]) {
    t.same(checkExpression(v), { problems: [], variables: new Set(), names: new Set() }, JSON.stringify(v))
  }
})

t.test('method and log are refused, wherever they appear', async (t) => {
  t.notOk(OPERATORS.has('method'))
  t.notOk(OPERATORS.has('log'))
  t.same(checkExpression({ method: [{ var: 'name' }, 'toString'] }).problems, [{ path: ['method'], msg: 'Unknown or forbidden operator "method"' }])
  t.same(
    checkExpression({ '!': { or: [false, { log: 'x' }] } }).problems.map((p) => p.path),
    [['!', 'or', 1, 'log']],
  )
})

t.test('an unknown operator is refused like a forbidden one', async (t) => {
  t.same(
    checkExpression({ eval: 'process.exit()' }).problems.map((p) => p.path),
    [['eval']],
  )
})

t.test('an operation must have exactly one operator key', async (t) => {
  t.match(checkExpression({}).problems, [{ path: [], msg: /exactly one operator/ }])
  t.match(checkExpression({ '==': [1, 1], var: 'x' }).problems, [{ path: [], msg: /exactly one operator/ }])
  t.same(
    checkExpression({ if: [{}, 'a', 'b'] }).problems.map((p) => p.path),
    [['if', 0]],
  )
})

t.test('a forbidden operator hidden in a var name or an iterator body is still found', async (t) => {
  t.same(
    checkExpression({ var: { method: ['a', 'b'] } }).problems.map((p) => p.path),
    [['var', 'method']],
  )
  t.same(
    checkExpression({ map: [{ var: 'items' }, { log: { var: 'x' } }] }).problems.map((p) => p.path),
    [['map', 1, 'log']],
  )
})

t.test('vars inside an iterator body read the current item', async (t) => {
  t.same(vars({ some: [{ var: 'items' }, { '==': [{ var: 'sku' }, 'A1'] }] }), ['items'])
  t.same(vars({ all: [{ var: 'items' }, { '>': [{ var: 'qty' }, 0] }] }), ['items'])
  t.same(vars({ reduce: [{ var: 'items' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] }), ['items'])
  t.same(vars({ filter: [{ map: [{ var: 'a' }, { var: 'b' }] }, { var: 'c' }] }), ['a'], 'nested iterators: only the outermost list')
})

t.test('nesting up to 32 levels passes and the 33rd is refused', async (t) => {
  const nest = (levels: number) => {
    let e: unknown = true
    for (let i = 0; i < levels; i++) e = { '!': e }
    return e
  }
  t.same(checkExpression(nest(32)).problems, [])
  const problems = checkExpression(nest(33)).problems
  t.equal(problems.length, 1)
  t.match(problems[0], { msg: /at most 32 levels/ })
  t.equal(problems[0]!.path.length, 33, 'the pointer leads to where it goes too deep')
  t.equal(checkExpression(nest(500)).problems.length, 1, 'a very deep expression is reported once')
})

t.test('an expression of more than 1000 parts is refused once', async (t) => {
  t.same(checkExpression({ cat: Array(998).fill('a') }).problems, [], '1000 parts: the operation, its list and 998 strings')
  const problems = checkExpression({ cat: Array(5000).fill('a') }).problems
  t.equal(problems.length, 1)
  t.match(problems[0], { path: ['cat', 998], msg: /at most 1000 parts/ })
})
