import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import type { LlmClient, LlmRequest } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'
import { CONVERSATION_GRAPH, agent, say, sessionPath, setup, start, useLlm } from './session-fixtures.js'

// The issue: "Two messages to the same session at once are serialized, never interleaved."
// docs/api.md: handled one at a time, in arrival order. The first reply waits on a gate, so the
// second message arrives while the first turn is still running.

function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

async function until(what: string, ok: () => boolean, ms = 5000) {
  for (const end = Date.now() + ms; !ok(); await sleep(5)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
}

t.test('a second message waits for the first turn to finish and sees its outcome', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const g = gate()
  const llm = new ScriptedLlm([[text('Reply '), { gate: g.promise }, text('A.')], [text('Reply B.')]])
  useLlm(s.a, llm)
  const { session_id: sid } = await start(s, id)
  const send = (text: string) => s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text } })

  const first = send('Message A')
  await until('the first turn to reach the LLM', () => llm.requests.length === 1)
  const second = send('Message B')
  // Long enough for the second request to arrive; unserialized, it would reach the LLM at once.
  await sleep(200)
  t.equal(llm.requests.length, 1, 'the second turn has not started while the first runs')
  g.open()
  const [a, b] = await Promise.all([first, second])
  t.equal(a.status, 200)
  t.equal(b.status, 200)
  t.same([a.body.reply, b.body.reply], ['Reply A.', 'Reply B.'])

  t.same(
    llm.requests[1]!.messages.slice(1).map((m) => [m.role, m.content]),
    [
      ['assistant', 'Hi, how can I help?'],
      ['user', 'Message A'],
      ['assistant', 'Reply A.'],
      ['user', 'Message B'],
    ],
    'the second turn ran on the state the first one stored',
  )

  const events = (await s.send('GET', `${sessionPath(id, sid)}/events`)).body as { kind: string; data: Record<string, unknown> }[]
  const lines = events.filter((e) => ['user_message', 'agent_message', 'turn'].includes(e.kind)).map((e) => `${e.kind}:${e.data.text ?? e.data.turn}`)
  t.same(
    lines,
    [
      'agent_message:Hi, how can I help?',
      'turn:1',
      'user_message:Message A',
      'agent_message:Reply A.',
      'turn:2',
      'user_message:Message B',
      'agent_message:Reply B.',
      'turn:3',
    ],
    "A's whole turn is stored before any of B's",
  )
  const detail = (await s.send('GET', sessionPath(id, sid))).body
  t.equal(detail.turn_count, 3)
  t.same(
    detail.transcript.map((m: { text: string }) => m.text),
    ['Hi, how can I help?', 'Message A', 'Reply A.', 'Message B', 'Reply B.'],
  )
})

t.test('a turn that fails releases the session: the queued message runs on the unchanged state', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const g = gate()
  const requests: LlmRequest[] = []
  // The first call waits on the gate and then fails as the provider adapter does; later calls answer.
  const llm: LlmClient = {
    async *stream(request) {
      requests.push(structuredClone(request))
      if (requests.length === 1) {
        await g.promise
        throw Object.assign(new Error('provider down'), { code: 'upstream_error', status: 502 })
      }
      yield text('Second answered.')
    },
  }
  useLlm(s.a, llm)
  const { session_id: sid } = await start(s, id)
  const first = s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'First' } })
  await until('the first turn to reach the LLM', () => requests.length === 1)
  const second = s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'Second' } })
  await sleep(200)
  t.equal(requests.length, 1, 'the second waits')
  g.open()
  const [a, b] = await Promise.all([first, second])
  t.same([a.status, a.body.error?.code], [502, 'upstream_error'])
  t.equal(b.status, 200)
  t.equal(b.body.reply, 'Second answered.')
  t.same(
    requests[1]!.messages.slice(1).map((m) => m.content),
    ['Hi, how can I help?', 'Second'],
    'nothing of the failed turn is in the history',
  )
})

t.test('different sessions are not held up by each other', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { definition: CONVERSATION_GRAPH })
  const g = gate()
  const llm = new ScriptedLlm([[{ gate: g.promise }, text('Slow.')], [text('Quick.')]])
  useLlm(s.a, llm)
  const one = await start(s, id)
  const two = await start(s, id)
  const slow = say(s, id, one.session_id, 'Take your time')
  await until('the slow turn to reach the LLM', () => llm.requests.length === 1)
  t.equal((await say(s, id, two.session_id, 'Quick question')).reply, 'Quick.', 'answered while the other session is busy')
  g.open()
  t.equal((await slow).reply, 'Slow.')
})
