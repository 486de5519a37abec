/**
 * Edge conditions are JSON Logic (data, never code). Only these operators are accepted; notably
 * `method` (calls arbitrary methods) and `log` are refused.
 */
export const OPERATORS = new Set([
  'var',
  'missing',
  'missing_some',
  '==',
  '===',
  '!=',
  '!==',
  '>',
  '>=',
  '<',
  '<=',
  '!',
  '!!',
  'and',
  'or',
  'if',
  '?:',
  'in',
  'cat',
  'substr',
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  'merge',
  'some',
  'all',
  'none',
  'map',
  'filter',
  'reduce',
])

const MAX_DEPTH = 32
const MAX_NODES = 1000

export interface ExpressionCheck {
  problems: { path: (string | number)[]; msg: string }[]
  /** First segments of every variable read (e.g. "order" for "order.total"). */
  variables: Set<string>
  /** Each full variable name read. */
  names: Set<string>
}

/** Checks an expression's shape and collects the variables it reads. */
export function checkExpression(expr: unknown): ExpressionCheck {
  const out: ExpressionCheck = { problems: [], variables: new Set(), names: new Set() }
  const read = (name: string) => {
    out.variables.add(name.split('.')[0]!)
    out.names.add(name)
  }
  let seen = 0
  const walk = (e: unknown, path: (string | number)[], depth: number, inIterator: boolean): void => {
    if (++seen > MAX_NODES) {
      if (seen === MAX_NODES + 1) out.problems.push({ path, msg: `An expression may have at most ${MAX_NODES} parts` })
      return
    }
    if (depth > MAX_DEPTH) {
      out.problems.push({ path, msg: `An expression may nest at most ${MAX_DEPTH} levels` })
      return
    }
    if (e === null || typeof e !== 'object') return
    if (Array.isArray(e)) return e.forEach((x, i) => walk(x, [...path, i], depth + 1, inIterator))
    const keys = Object.keys(e)
    if (keys.length !== 1) {
      out.problems.push({ path, msg: 'An operation is an object with exactly one operator key' })
      return
    }
    const op = keys[0]!
    if (!OPERATORS.has(op)) {
      out.problems.push({ path: [...path, op], msg: `Unknown or forbidden operator "${op}"` })
      return
    }
    const args = (e as Record<string, unknown>)[op]
    if (op === 'var') {
      const name = Array.isArray(args) ? args[0] : args
      // Inside some/all/none/map/filter/reduce, var refers to the current item, not a variable.
      if (typeof name === 'string' && name !== '' && !inIterator) read(name)
      else if (typeof name !== 'string' && typeof name !== 'number' && name !== undefined) walk(name, [...path, op], depth + 1, inIterator)
      return
    }
    // missing / missing_some name variables as plain strings.
    if ((op === 'missing' || op === 'missing_some') && !inIterator) {
      const list = op === 'missing_some' && Array.isArray(args) ? args[1] : args
      for (const n of Array.isArray(list) ? list : [list]) if (typeof n === 'string' && n !== '') read(n)
    }
    const iterator = ['some', 'all', 'none', 'map', 'filter', 'reduce'].includes(op)
    if (iterator && Array.isArray(args)) {
      walk(args[0], [...path, op, 0], depth + 1, inIterator)
      args.slice(1).forEach((a, i) => walk(a, [...path, op, i + 1], depth + 1, true))
      return
    }
    walk(args, [...path, op], depth + 1, inIterator)
  }
  walk(expr, [], 0, false)
  return out
}
