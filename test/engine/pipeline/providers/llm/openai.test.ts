import t from 'tap'
import { OpenAiLlm } from '../../../../../engine/pipeline/providers/llm/index.js'
import { KEY, collect, never, request, setup, texts } from './fixture.js'

t.test('streams the model’s text in order, then its usage', async (t) => {
  const { server, llm } = await setup(t)
  server.script({ text: ['Good ', 'morning', ', how ', 'can I help?'], usage: { prompt_tokens: 31, completion_tokens: 4 } })
  const chunks = await collect(llm.stream(request(), never()))
  t.same(chunks, [
    { type: 'text', text: 'Good ' },
    { type: 'text', text: 'morning' },
    { type: 'text', text: ', how ' },
    { type: 'text', text: 'can I help?' },
    { type: 'usage', model: 'gpt-4o-mini', prompt_tokens: 31, completion_tokens: 4 },
  ])
})

t.test('answers from its input: the stand-in’s echo comes back through the SDK', async (t) => {
  const { llm } = await setup(t)
  const one = texts(await collect(llm.stream(request({ messages: [{ role: 'user', content: 'Saat kaçta açıksınız?' }] }), never())))
  t.equal(one.join(''), 'You said: Saat kaçta açıksınız?')
  t.ok(one.length > 1, 'as several chunks')
})

t.test('assembles tool calls from fragmented arguments and yields each once, complete, at the end', async (t) => {
  const { server, llm } = await setup(t)
  server.script({
    text: 'Let me check that.',
    toolCalls: [
      { id: 'call_a', name: 'shop__lookup', arguments: { order: '42', fields: ['status', 'eta'] }, fragments: 6 },
      { id: 'call_b', name: 'set_variables', arguments: { order_id: '42' }, fragments: 3 },
    ],
  })
  const chunks = await collect(llm.stream(request(), never()))
  t.same(
    chunks.map((c) => c.type),
    ['text', 'text', 'text', 'text', 'tool_call', 'tool_call', 'usage'],
  )
  t.same(
    chunks.filter((c) => c.type === 'tool_call'),
    [
      { type: 'tool_call', id: 'call_a', name: 'shop__lookup', arguments: '{"order":"42","fields":["status","eta"]}' },
      { type: 'tool_call', id: 'call_b', name: 'set_variables', arguments: '{"order_id":"42"}' },
    ],
  )
  t.ok(server.requests[0]!.injected.chunks >= 13, 'the arguments really arrived in pieces')
})

t.test('sends the messages, tools, model and limits the caller gave, in OpenAI’s shapes', async (t) => {
  const { server, llm } = await setup(t, { model: 'llama3.2' })
  const tool = {
    name: 'shop__lookup',
    description: 'Find an order',
    parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  }
  await collect(llm.stream(request(), never()))
  await collect(
    llm.stream(
      request({
        model: 'gpt-4.1-mini',
        tools: [tool],
        temperature: 0.7,
        maxTokens: 64,
        messages: [
          { role: 'system', content: 'Help with orders.' },
          { role: 'user', content: 'Where is 42?' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'call_a', name: 'shop__lookup', arguments: '{"order":"42"}' }] },
          { role: 'tool', tool_call_id: 'call_a', content: '{"status":"shipped"}' },
        ],
      }),
      never(),
    ),
  )
  const [plain, withTools] = server.requests
  t.match(plain!.body, { model: 'llama3.2', stream: true, stream_options: { include_usage: true }, temperature: 0.3, max_tokens: 200 })
  t.notOk('tools' in plain!.body, 'no tools key at all when there are no tools (OpenAI refuses [])')
  t.same(plain!.messages, [
    { role: 'system', content: 'You are a receptionist.' },
    { role: 'user', content: 'Hello there' },
  ])
  t.match(withTools!.body, { model: 'gpt-4.1-mini', temperature: 0.7, max_tokens: 64 })
  t.same(withTools!.tools, [{ type: 'function', function: tool }])
  t.same(
    withTools!.messages.slice(2),
    [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'shop__lookup', arguments: '{"order":"42"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: '{"status":"shipped"}' },
    ],
    'the tool result round-trips, paired with its call',
  )
  t.equal(withTools!.status, 200, 'and the stand-in, as strict as OpenAI about the pairing, accepted it')
})

t.test('max_completion_tokens is sent instead when configured', async (t) => {
  const { server, llm } = await setup(t, { maxTokensField: 'max_completion_tokens' })
  await collect(llm.stream(request({ maxTokens: 99 }), never()))
  t.equal(server.requests[0]!.body.max_completion_tokens, 99)
  t.notOk('max_tokens' in server.requests[0]!.body)
})

t.test('a slow consumer does not count against the idle timeout', async (t) => {
  // The stand-in takes 50 ms per chunk, well inside the 200 ms idle timeout, and is still
  // streaming when the consumer has held the first chunk for longer than that timeout.
  const { server, llm } = await setup(t, { idleTimeoutMs: 200 }, { tokensPerSecond: 20 })
  server.script({ text: 'one two three four five six' })
  const got: string[] = []
  for await (const c of llm.stream(request(), never())) {
    if (c.type !== 'text') continue
    got.push(c.text)
    if (got.length === 1) await new Promise((r) => setTimeout(r, 400))
  }
  t.same(got, ['one ', 'two ', 'three ', 'four ', 'five ', 'six'])
})

t.test('breaking out of the stream closes the HTTP response', async (t) => {
  const { server, llm } = await setup(t, {}, { tokensPerSecond: 50 })
  server.script({ text: 'a b c d e f g h i j k l m n o p' })
  for await (const c of llm.stream(request(), never())) if (c.type === 'text') break
  t.equal(await server.requests[0]!.ended, 'client_closed')
  t.ok(server.requests[0]!.injected.chunks < 16, 'the stand-in stopped sending')
})

t.test('the constructor checks its options up front', async (t) => {
  t.throws(() => new OpenAiLlm({ apiKey: '' }), /apiKey is required/)
  t.throws(() => new OpenAiLlm({ apiKey: KEY, baseURL: 'not a url' }), /base URL is not a URL/)
  t.throws(() => new OpenAiLlm({ apiKey: KEY, baseURL: 'ftp://x/v1' }), /http or https/)
  t.throws(() => new OpenAiLlm({ apiKey: KEY, timeoutMs: 0 }), RangeError)
  t.throws(() => new OpenAiLlm({ apiKey: KEY, maxRetries: -1 }), RangeError)
  t.match(new OpenAiLlm({ apiKey: KEY }).options, { baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini', maxRetries: 2 })
  t.notOk(JSON.stringify(new OpenAiLlm({ apiKey: KEY }).options).includes(KEY), 'the public options do not hold the key')
})
