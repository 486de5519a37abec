/**
 * An automation's filter: a JSON Logic expression over the event, as `{ event, data }` (the body a
 * webhook receives), e.g. `{ "==": [{ "var": "data.status" }, "completed"] }`. The graph runtime's
 * operator allow-list and size bounds apply (no `method`, no `log`); on top of them an iterator
 * (some, all, none, map, filter, reduce) may not run inside another's body: filters run inside the
 * publisher's transaction, so their work must stay linear in the payload (two nested loops over a
 * long transcript would be quadratic).
 */
import jsonLogic from 'json-logic-js'
import { checkExpression } from '../../engine/graph-runtime/index.js'

export const ITERATORS = new Set(['some', 'all', 'none', 'map', 'filter', 'reduce'])
/** Names a filter or template may read: the event type and its data. */
export const ROOTS = new Set(['event', 'data'])

export interface Problem {
  path: (string | number)[]
  msg: string
}

/** What is wrong with a filter (empty: it can be saved). */
export function checkFilter(expr: unknown): Problem[] {
  if (expr === null || typeof expr !== 'object' || Array.isArray(expr))
    return [{ path: [], msg: 'A filter is one JSON Logic operation: an object with one operator key' }]
  const checked = checkExpression(expr)
  const problems: Problem[] = [...checked.problems]
  if (problems.length) return problems
  for (const name of checked.names) {
    const root = name.split('.')[0]!
    if (!ROOTS.has(root)) problems.push({ path: [], msg: `"${name}" is not in the event: read data.<field> (the payload) or event (its type)` })
  }
  nestedIterator(expr, [], false, problems)
  return problems
}

function nestedIterator(e: unknown, path: (string | number)[], inBody: boolean, out: Problem[]): void {
  if (out.length || e === null || typeof e !== 'object') return
  if (Array.isArray(e)) return e.forEach((x, i) => nestedIterator(x, [...path, i], inBody, out))
  const [op] = Object.keys(e)
  const args = (e as Record<string, unknown>)[op!]
  if (ITERATORS.has(op!)) {
    if (inBody) {
      out.push({ path: [...path, op!], msg: `"${op}" inside the body of another iterator is not allowed: a filter's work must stay linear in the payload` })
      return
    }
    if (Array.isArray(args)) {
      nestedIterator(args[0], [...path, op!, 0], inBody, out)
      args.slice(1).forEach((a, i) => nestedIterator(a, [...path, op!, i + 1], true, out))
      return
    }
  }
  nestedIterator(args, [...path, op!], inBody, out)
}

/** Whether the event passes the filter (null: every event does). A filter that throws is false. */
export function passes(filter: unknown, view: Record<string, unknown>): boolean {
  if (filter === null || filter === undefined) return true
  try {
    // JSON Logic's own truthiness ([] is false), as the expression's author reads it.
    return jsonLogic.truthy(jsonLogic.apply(filter as jsonLogic.RulesLogic, view))
  } catch {
    return false
  }
}
