import { randomInt } from 'node:crypto'
import t from 'tap'
import { AgentConfig, Definition, GraphRuntime, initialState, validateDefinition, type RuntimeEvent } from '../../../engine/graph-runtime/index.js'
import { Rng, randomDefinition, randomIo, randomJson, randomString } from './random-graph.js'

// Issue #18: "make the runtime unable to 500 on any definition that validation accepted". Random
// definitions (every node kind, expressions, templates with sections, defaults nested up to the
// limit) go through validation; each one accepted runs over text with a random LLM stand-in,
// random action results (some nested 20,000 levels) and random caller words. Whatever happens,
// nothing throws, no runtime_error (nor template_too_large) is emitted, and the state stays JSON.
// Bounded in time; OZAN_PROPERTY_SEED=<n> replays a run (the seed is printed on failure).

const BUDGET_MS = 4000
const MAX_CASES = 400
const seed = Number(process.env.OZAN_PROPERTY_SEED ?? randomInt(2 ** 31))
const OWN_FAILURES = new Set(['runtime_error', 'template_too_large'])
const config = AgentConfig.parse({})

async function drain(stream: AsyncIterable<RuntimeEvent>, into: RuntimeEvent[]) {
  for await (const e of stream) into.push(e)
}

t.test(`random valid definitions run without a throw or an error of the runtime's own (seed ${seed})`, async (t) => {
  const r = new Rng(seed)
  const started = performance.now()
  let cases = 0
  let accepted = 0
  let turns = 0
  while (cases < MAX_CASES && performance.now() - started < BUDGET_MS) {
    const caseSeed = r.int(0, 2 ** 31)
    const c = new Rng(caseSeed)
    cases++
    const raw = randomDefinition(c)
    const parsed = Definition.safeParse(raw)
    if (!parsed.success) {
      t.fail(`the generator made a definition the schema refuses (seed ${seed}, case ${caseSeed})`, { issues: parsed.error.issues.slice(0, 3) })
      break
    }
    const problems = validateDefinition(parsed.data)
    if (problems.length) {
      t.fail(`the generator made a definition validation refuses (seed ${seed}, case ${caseSeed})`, { problems: problems.slice(0, 3) })
      break
    }
    accepted++
    const def = parsed.data
    const seedVariables = Object.fromEntries(def.variables.filter(() => c.chance(0.3)).map((v) => [v.name, randomJson(c, 3)]))
    const runtime = new GraphRuntime(def, config, randomIo(c, c.chance(0.8)), initialState(def, seedVariables), {
      channel: 'chat',
      caller_number: '+905551112233',
    })
    const seen: RuntimeEvent[] = []
    try {
      await drain(runtime.start(AbortSignal.timeout(5000)), seen)
      for (let i = 0; i < 5 && !runtime.state.ended; i++) {
        turns++
        await drain(runtime.turn(randomString(c) || 'hello', AbortSignal.timeout(5000)), seen)
      }
      const state = runtime.state
      const text = JSON.stringify(state)
      if (JSON.stringify(JSON.parse(text)) !== text) throw new Error('the state does not survive JSON')
      JSON.stringify(seen)
    } catch (err) {
      t.fail(`a run threw (seed ${seed}, case ${caseSeed}): ${(err as Error).stack ?? String(err)}`)
      break
    }
    const own = seen.find((e) => e.type === 'error' && OWN_FAILURES.has(e.code))
    if (own) {
      t.fail(`the runtime failed on its own (seed ${seed}, case ${caseSeed})`, { event: own, definition: JSON.stringify(raw).slice(0, 4000) })
      break
    }
  }
  t.ok(accepted >= 50, `${accepted} of ${cases} definitions accepted and run (${turns} caller turns) in ${Math.round(performance.now() - started)} ms`)
})
