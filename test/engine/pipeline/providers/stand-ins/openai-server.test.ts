import t, { type Test } from 'tap'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

const KEY = 'sk-standin-test-key-0042'

async function standIn(t: Test, opts: { firstTokenLatencyMs?: number; tokensPerSecond?: number } = {}): Promise<OpenAiStandIn> {
  const s = await startOpenAiStandIn({ apiKey: KEY, ...opts })
  t.teardown(() => s.close())
  return s
}

function post(s: OpenAiStandIn, body: unknown, key = KEY, signal?: AbortSignal): Promise<Response> {
  return fetch(`${s.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  })
}

/** The SSE body as its `data:` payloads, checking the framing on the way. */
async function events(t: Test, res: Response): Promise<string[]> {
  t.match(res.headers.get('content-type'), /^text\/event-stream/)
  const raw = await res.text()
  t.ok(raw.endsWith('\n\n'), 'every event ends with a blank line')
  const blocks = raw.slice(0, -2).split('\n\n')
  t.ok(blocks.length > 1 && blocks.every((b) => /^data: [^\n]+$/.test(b)), 'one data line per event')
  return blocks.map((b) => b.slice('data: '.length))
}

const user = (content: string) => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content },
  ],
})

t.test('streams chat.completion.chunk events, the usage chunk when asked, then [DONE]', async (t) => {
  const s = await standIn(t)
  const data = await events(t, await post(s, { ...user('merhaba dünya'), stream: true, stream_options: { include_usage: true } }))
  t.equal(data.at(-1), '[DONE]')
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
  t.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id && c.model === 'gpt-4o-mini'))
  t.match(chunks[0].choices[0], { index: 0, delta: { role: 'assistant' }, finish_reason: null })
  const content = chunks.flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? '')).join('')
  t.equal(content, 'You said: merhaba dünya', 'the default reply echoes the last user message')
  const last = chunks.at(-1)
  t.same(last.choices, [], 'usage travels in a final chunk with no choices')
  t.match(last.usage, { prompt_tokens: Number, completion_tokens: 4 })
  t.equal(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens)
  t.equal(chunks.at(-2).choices[0].finish_reason, 'stop')
  t.ok(
    chunks.slice(0, -1).every((c) => c.usage === null),
    'other chunks carry usage: null',
  )

  const plain = (await events(t, await post(s, { ...user('again'), stream: true }))).slice(0, -1).map((d) => JSON.parse(d))
  t.notOk(
    plain.some((c) => 'usage' in c),
    'no usage without stream_options.include_usage',
  )
})

t.test('answers without streaming as one chat.completion', async (t) => {
  const s = await standIn(t)
  const res = await post(s, user('two different inputs'))
  t.equal(res.status, 200)
  const body = await res.json()
  t.match(body, {
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: 'You said: two different inputs' }, finish_reason: 'stop' }],
    usage: { completion_tokens: 5 },
  })
})

t.test('replies scripted for a user text answer only that text, in order, ahead of the queue', async (t) => {
  const s = await standIn(t)
  s.script({ text: 'Queued.' }, { text: 'For the table.', forUser: 'book a table' }, { text: 'Again.', forUser: 'book a table' })
  const answer = async (text: string) =>
    ((await (await post(s, user(text))).json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content
  t.equal(await answer('book a'), 'Queued.', 'a speculation on a prefix takes the queue, not the keyed reply')
  t.equal(await answer('book a table'), 'For the table.')
  t.equal(await answer('book a'), 'You said: book a', 'the queue is empty: echo')
  t.equal(await answer('book a table'), 'Again.', 'the next one for the same text')
  t.equal(await answer('book a table'), 'You said: book a table', 'each is used once')
  s.fallback({ text: 'Always this.' })
  t.equal(await answer('anything'), 'Always this.', 'the fallback instead of the echo')
  t.equal(await answer('anything else'), 'Always this.', 'never used up')
  s.fallback(null)
  t.equal(await answer('hi'), 'You said: hi', 'and the echo again')
})

t.test('streams scripted tool calls with arguments split across chunks', async (t) => {
  const s = await standIn(t)
  s.script({ text: ['One ', 'moment.'], toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { order: '42', note: 'a longer argument' }, fragments: 4 }] })
  const chunks = (await events(t, await post(s, { ...user('x'), stream: true }))).slice(0, -1).map((d) => JSON.parse(d))
  const calls = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? [])
  t.match(calls[0], { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } })
  const fragments = calls.slice(1)
  t.equal(fragments.length, 4)
  t.ok(
    fragments.every((f: Record<string, unknown>) => f.index === 0 && !('id' in f)),
    'later fragments carry only index and arguments',
  )
  t.same(JSON.parse(fragments.map((f: { function: { arguments: string } }) => f.function.arguments).join('')), { order: '42', note: 'a longer argument' })
  t.equal(chunks.at(-1).choices[0].finish_reason, 'tool_calls')
  t.same(
    chunks.slice(0, 2).map((c) => c.choices[0].delta.content),
    ['One ', 'moment.'],
  )
})

t.test('refuses a wrong or missing key with 401 and OpenAI’s error body, masking the key', async (t) => {
  const s = await standIn(t)
  const wrong = 'sk-wrong-key-abcdef-9876'
  const res = await post(s, user('hi'), wrong)
  t.equal(res.status, 401)
  const body = await res.json()
  t.match(body, { error: { type: 'invalid_request_error', code: 'invalid_api_key', param: null, message: /^Incorrect API key provided: sk-\*+9876\./ } })
  t.notMatch(body.error.message, wrong)
  const missing = await fetch(`${s.url}/chat/completions`, { method: 'POST', body: JSON.stringify(user('hi')) })
  t.equal(missing.status, 401)
  t.match(await missing.json(), { error: { message: /didn't provide an API key/ } })
  t.same(
    s.requests.map((r) => [r.authorized, r.status]),
    [
      [false, 401],
      [false, 401],
    ],
    'refused requests are logged too',
  )
})

t.test('refuses what OpenAI refuses: empty tools, an unanswered or stray tool message', async (t) => {
  const s = await standIn(t)
  const empty = await post(s, { ...user('x'), tools: [] })
  t.equal(empty.status, 400)
  t.match(await empty.json(), { error: { message: "[] is too short - 'tools'", param: 'tools' } })
  const stray = await post(s, {
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'tool', tool_call_id: 'nope', content: '{}' },
    ],
  })
  t.match(await stray.json(), { error: { message: /must be a response to a preceeding message with 'tool_calls'/ } })
  const unanswered = await post(s, {
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    ],
  })
  t.match(await unanswered.json(), { error: { message: /did not have response messages: c1/ } })
  const answered = await post(s, {
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ],
  })
  t.equal(answered.status, 200)
})

t.test('injects one failure per request: 429 with Retry-After, then a normal answer', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'status', status: 429, retryAfterS: 2, retryAfterMs: 1500 })
  const limited = await post(s, user('x'))
  t.equal(limited.status, 429)
  t.equal(limited.headers.get('retry-after'), '2')
  t.equal(limited.headers.get('retry-after-ms'), '1500')
  t.match(await limited.json(), { error: { code: 'rate_limit_exceeded' } })
  t.equal((await post(s, user('x'))).status, 200, 'the failure was used once')
  t.same(
    s.requests.map((r) => r.injected.failure),
    ['status 429', null],
  )
})

t.test('a reset cuts the connection; a hang ends when the client gives up; both are logged', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'reset', afterChunks: 2 }, { kind: 'hang' })
  const res = await post(s, { ...user('one two three four'), stream: true })
  await t.rejects(res.text(), 'the body breaks off')
  t.equal(await s.requests[0]!.ended, 'reset')
  t.equal(s.requests[0]!.injected.chunks, 2)
  const ac = new AbortController()
  const hanging = post(s, user('x'), KEY, ac.signal)
  while (s.requests.length < 2) await new Promise((r) => setTimeout(r, 5))
  ac.abort()
  await t.rejects(hanging)
  t.equal(await s.requests[1]!.ended, 'client_closed')
  t.equal(s.requests[1]!.status, 0, 'no response head was sent')
})

t.test('logs what it received and reports the delays it injected', async (t) => {
  const s = await standIn(t, { firstTokenLatencyMs: 20, tokensPerSecond: 200 })
  const tools = [{ type: 'function', function: { name: 'lookup', description: 'Find an order', parameters: { type: 'object' } } }]
  await events(t, await post(s, { ...user('hi'), model: 'llama3.2', tools, stream: true }))
  const [r] = s.requests
  t.match(r, { path: '/v1/chat/completions', authorized: true, model: 'llama3.2', stream: true, status: 200, outcome: 'completed', tools })
  t.same(r!.messages, user('hi').messages)
  t.same(r!.injected, { firstTokenMs: 20, interChunkMs: 5, chunks: 4, failure: null })
  const models = await (await fetch(`${s.url}/models`, { headers: { authorization: `Bearer ${KEY}` } })).json()
  t.match(models, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] })
})
