/**
 * The deterministic assertions of a case, checked against its recording (pure). Rubric assertions
 * need an LLM and are judged in judge.ts; latency assertions need a voice run's measures. Each
 * result says why, in words a suite's author can act on.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Recording } from './recording.js'
import type { TestAssertionT } from './schema.js'
import type { CaseOutcome } from './schema-runs.js'

export type AssertionResult = CaseOutcome['assertions'][number]
type Verdict = Pick<AssertionResult, 'status' | 'reason'>

const pass = (reason: string): Verdict => ({ status: 'passed', reason })
const fail = (reason: string): Verdict => ({ status: 'failed', reason })
const show = (v: unknown) => JSON.stringify(v) ?? 'undefined'

/** Lower case, one space between words: "said" matches spacing and case aside. */
export const normalize = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()

/** Voice measures the latency assertions read; null over text. */
export interface VoiceMeasures {
  responseMs: (number | null)[]
}

/** Checks every assertion but rubric ones (left null, for the judge). */
export function checkAssertions(assertions: TestAssertionT[], rec: Recording, voice: VoiceMeasures | null): (AssertionResult | null)[] {
  return assertions.map((a, index) => {
    if (a.type === 'rubric') return null
    return { index, type: a.type, ...verdict(a, rec, voice) }
  })
}

function verdict(a: Exclude<TestAssertionT, { type: 'rubric' }>, rec: Recording, voice: VoiceMeasures | null): Verdict {
  switch (a.type) {
    case 'path':
      return pathVerdict(a.nodes, a.match, rec.path)
    case 'variable': {
      if (!Object.hasOwn(rec.variables, a.name) || rec.variables[a.name] === null || rec.variables[a.name] === undefined)
        return fail(`The variable ${a.name} was never set.`)
      const value = rec.variables[a.name]
      if (a.equals === undefined) return pass(`${a.name} is ${show(value)}.`)
      return isDeepStrictEqual(value, a.equals) ? pass(`${a.name} is ${show(value)}.`) : fail(`${a.name} is ${show(value)}, expected ${show(a.equals)}.`)
    }
    case 'said': {
      const line = agentLines(rec).find((l) => normalize(l).includes(normalize(a.text)))
      return line !== undefined ? pass(`The agent said it: “${line}”.`) : fail(`The agent never said “${a.text}”.`)
    }
    case 'not_said': {
      const line = agentLines(rec).find((l) => normalize(l).includes(normalize(a.text)))
      return line === undefined ? pass(`The agent never said “${a.text}”.`) : fail(`The agent said “${a.text}”: “${line}”.`)
    }
    case 'tool_called':
      return toolVerdict(a, rec)
    case 'ended': {
      const e = rec.ended
      if (!e.ended) return fail(`The agent did not end the call: ${e.by === 'turn_limit' ? 'the caller ran out of turns' : 'the caller hung up'} first.`)
      if (a.disposition !== undefined && e.disposition !== a.disposition)
        return fail(`The call ended with disposition ${show(e.disposition)}, expected ${show(a.disposition)}.`)
      return pass(`The agent ended the call (disposition ${show(e.disposition)}).`)
    }
    case 'latency': {
      if (!voice) return { status: 'not_applicable', reason: 'Latency is measured on voice runs only.' }
      const measured = voice.responseMs.filter((ms): ms is number => ms !== null)
      if (!measured.length) return fail('The agent never answered the caller, so no response time was measured.')
      const slow = voice.responseMs.map((ms, i) => ({ ms, turn: i + 1 })).filter((x) => x.ms === null || x.ms > a.max_response_ms)
      if (!slow.length) return pass(`Every response began within ${a.max_response_ms} ms (slowest ${Math.round(Math.max(...measured))} ms).`)
      const which = slow.map((x) => (x.ms === null ? `turn ${x.turn}: no answer` : `turn ${x.turn}: ${Math.round(x.ms)} ms`)).join(', ')
      return fail(`Responses over ${a.max_response_ms} ms: ${which}.`)
    }
  }
}

const agentLines = (rec: Recording) => rec.transcript.filter((l) => l.role === 'agent').map((l) => l.text)

function pathVerdict(nodes: string[], match: 'in_order' | 'exact', path: string[]): Verdict {
  const walked = path.length ? path.join(' → ') : 'no node'
  if (match === 'exact')
    return isDeepStrictEqual(nodes, path) ? pass(`Entered exactly ${walked}.`) : fail(`Entered ${walked}; expected exactly ${nodes.join(' → ')}.`)
  let from = 0
  for (const [i, node] of nodes.entries()) {
    const at = path.indexOf(node, from)
    if (at < 0) {
      const after = i === 0 ? '' : ` after ${nodes[i - 1]}`
      return fail(`Entered ${walked}; ${node} was not entered${after}.`)
    }
    from = at + 1
  }
  return pass(`Entered ${walked}.`)
}

function toolVerdict(a: Extract<TestAssertionT, { type: 'tool_called' }>, rec: Recording): Verdict {
  const name = `${a.integration}.${a.action}`
  const same = rec.toolCalls.filter((c) => c.integration === a.integration && c.action === a.action)
  const matching = same.filter((c) =>
    Object.entries(a.arguments ?? {}).every(([k, v]) => Object.hasOwn(c.arguments, k) && isDeepStrictEqual(c.arguments[k], v)),
  )
  const withArgs = a.arguments ? ` with ${show(a.arguments)}` : ''
  const seen = same.length === matching.length ? '' : ` (${same.length} call(s) in all, with ${same.map((c) => show(c.arguments)).join(', ')})`
  if (a.times === undefined)
    return matching.length > 0 ? pass(`${name} was called${withArgs} ${matching.length} time(s).`) : fail(`${name} was never called${withArgs}${seen}.`)
  return matching.length === a.times
    ? pass(`${name} was called${withArgs} ${a.times} time(s).`)
    : fail(`${name} was called${withArgs} ${matching.length} time(s), expected ${a.times}${seen}.`)
}
