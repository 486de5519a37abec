import t from 'tap'
import type { z } from 'zod'
import { AgentConfig, Definition, GraphRuntime, discardTurn, initialState, type RuntimeEvent } from '../../../../engine/graph-runtime/index.js'
import { ScriptedLlm, text } from '../../../../engine/graph-runtime/testing/scripted-llm.js'
import { Generation } from '../../../../engine/pipeline/call/generation.js'
import { demoGraph } from './fixture.js'

const config = AgentConfig.parse({})
const runtime = (def: z.input<typeof Definition>, llm?: ScriptedLlm) => {
  const parsed = Definition.parse(def)
  return new GraphRuntime(parsed, config, { now: () => new Date(), ...(llm ? { llm } : {}) }, initialState(parsed), {})
}
const drain = async (g: AsyncIterable<RuntimeEvent>) => {
  const out: RuntimeEvent[] = []
  for await (const e of g) out.push(e)
  return out
}
const says = (events: RuntimeEvent[]) => events.flatMap((e) => (e.type === 'say' ? [e.text] : []))

t.test('a primed (preempted) deterministic turn cancelled before commit leaves the runtime as it was', async (t) => {
  const rt = runtime(demoGraph)
  await drain(rt.start(new AbortController().signal))
  const before = rt.state
  const g = new Generation((s) => rt.turn('Alice', s), Promise.resolve(), 0)
  g.prime()
  await new Promise((r) => setTimeout(r, 20)) // the body has run to its end by now
  g.cancel()
  await g.settled
  t.equal(rt.state.nodeId, before.nodeId)
  t.same(rt.state.variables, before.variables)
  // The same words then answered for real.
  const g2 = new Generation((s) => rt.turn('Alice', s), g.settled, 0)
  const events = await drain(g2.events())
  t.match(says(events)[0], /^Nice to meet you/)
  t.equal(rt.state.variables['name'], 'Alice')
})

t.test('a primed turn that is committed yields every event, the first included', async (t) => {
  const rt = runtime(demoGraph)
  await drain(rt.start(new AbortController().signal))
  const g = new Generation((s) => rt.turn('Bob', s), Promise.resolve(), 0)
  g.prime()
  await new Promise((r) => setTimeout(r, 10))
  const events = await drain(g.events())
  t.match(events[0], { type: 'variable', name: 'name', value: 'Bob' })
  t.same(says(events), [
    'Nice to meet you. We are open every day from nine in the morning until six in the evening, and on Saturdays we close at noon.',
    'Shall I repeat the opening hours?',
  ])
  await g.settled
})

t.test('an LLM turn aborted mid-stream by a consumer that stops reading still restores state; turns are serialized', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const llm = new ScriptedLlm([[text('Hello'), { gate }, text(' there.')], [text('Second.')]])
  const rt = runtime(
    {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'chat', type: 'conversation', data: { prompt: 'Be brief.' } },
      ],
      edges: [{ id: 'e', source: 'start', target: 'chat' }],
    },
    llm,
  )
  await drain(rt.start(new AbortController().signal))
  const g1 = new Generation((s) => rt.turn('hi', s), Promise.resolve(), 0)
  let opened2 = false
  const g2 = new Generation((s) => ((opened2 = true), rt.turn('again', s)), g1.settled, 0)
  const seen: RuntimeEvent[] = []
  for await (const e of g1.events()) {
    seen.push(e)
    if (e.type === 'text_delta') {
      t.equal(opened2, false, 'the next turn waits for the runtime')
      g1.cancel()
      break
    }
  }
  release()
  await g1.settled
  t.same(
    rt.state.history.filter((h) => h.role === 'assistant'),
    [],
    'the half reply was not kept',
  )
  const events = await drain(g2.events())
  t.equal(opened2, true)
  t.same(says(events), ['Second.'])
})

t.test("a cut turn keeps the caller's words in the history; a discarded one (the caller went on) leaves none", async (t) => {
  const chat: z.input<typeof Definition> = {
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'chat', type: 'conversation', data: { prompt: 'Be brief.' } },
    ],
    edges: [{ id: 'e', source: 'start', target: 'chat' }],
  }
  const userLines = (rt: GraphRuntime) => rt.state.history.filter((h) => h.role === 'user').map((h) => h.text)
  for (const [how, reason, kept] of [
    ['cut', undefined, ['I want to book']],
    ['discarded', discardTurn(), []],
  ] as const) {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const rt = runtime(chat, new ScriptedLlm([[text('Sure'), { gate }, text(', when?')]]))
    await drain(rt.start(new AbortController().signal))
    const g = new Generation((s) => rt.turn('I want to book', s), Promise.resolve(), 0)
    g.prime()
    await new Promise((r) => setTimeout(r, 20))
    g.cancel(reason)
    release()
    await g.settled
    t.same(userLines(rt), kept, `${how}: the user's words`)
  }
})

t.test('a generation whose runtime refuses to open fails its consumer, and cancel on it is harmless', async (t) => {
  const rt = runtime(demoGraph)
  const g = new Generation((s) => rt.turn('x', s), Promise.resolve(), 0)
  await t.rejects(drain(g.events()), { code: 'not_started' })
  g.cancel()
  await g.settled
})
