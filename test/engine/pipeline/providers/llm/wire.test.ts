import t from 'tap'
import { APIConnectionTimeoutError, APIError } from 'openai'
import { ProviderError, retryAfter, toSdkMessages, toSdkTools, ToolCallAssembler } from '../../../../../engine/pipeline/providers/llm/index.js'
import { llmFailure } from '../../../../../engine/pipeline/providers/llm/errors.js'

t.test('tool-call fragments are joined by index; ids and names are taken whole, not concatenated', async (t) => {
  const a = new ToolCallAssembler()
  a.add([{ index: 1, id: 'call_b', type: 'function', function: { name: 'second', arguments: '' } }])
  a.add([{ index: 0, id: 'call_a', type: 'function', function: { name: 'first', arguments: '{"x"' } }])
  a.add([
    { index: 0, function: { arguments: ':1}' } },
    { index: 1, id: 'call_b', function: { name: 'second', arguments: '{}' } },
  ])
  t.same(a.drain(), [
    { id: 'call_a', name: 'first', arguments: '{"x":1}' },
    { id: 'call_b', name: 'second', arguments: '{}' },
  ])
  t.equal(a.size, 0, 'drained')
})

t.test('servers that omit index or id still yield usable calls', async (t) => {
  const a = new ToolCallAssembler()
  const noIndex = (f: object) => f as { index: number }
  a.add([noIndex({ id: 'c1', function: { name: 'one', arguments: '{"a":' } })])
  a.add([noIndex({ function: { arguments: '1}' } })])
  a.add([noIndex({ id: 'c2', function: { name: 'two', arguments: '' } })])
  a.add([{ index: 5, function: { name: 'anonymous' } }])
  const calls = a.drain()
  t.match(calls, [
    { id: 'c1', name: 'one', arguments: '{"a":1}' },
    { id: 'c2', name: 'two', arguments: '{}' },
    { id: /^call_\w{24}$/, name: 'anonymous', arguments: '{}' },
  ])
})

t.test('messages map to the SDK shapes; a tool message without its call id is refused before sending', async (t) => {
  t.same(
    toSdkMessages([
      { role: 'assistant', content: 'Hi' },
      { role: 'assistant', content: 'x', tool_calls: [{ id: 'c', name: 'f', arguments: '' }] },
    ]),
    [
      { role: 'assistant', content: 'Hi' },
      { role: 'assistant', content: 'x', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    ],
  )
  t.throws(() => toSdkMessages([{ role: 'tool', content: 'r' }]), /messages\[0\]: a tool message needs the tool_call_id/)
})

t.test('Retry-After is read as retry-after-ms, seconds, or an HTTP date', async (t) => {
  const now = Date.parse('2026-11-22T10:00:00Z')
  t.equal(retryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250)
  t.equal(retryAfter(new Headers({ 'retry-after': '1.5' }), now), 1500)
  t.equal(retryAfter(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }), now), 7000)
  t.equal(retryAfter(new Headers({ 'retry-after': 'soon' }), now), undefined)
  t.equal(retryAfter(undefined, now), undefined)
})

const ctx = { host: 'llm.example:443', apiKey: 'sk-live-abcdef123456', attempt: 2, timeoutMs: 900 }

t.test('SDK errors map to codes, statuses and retryability', async (t) => {
  const h = new Headers()
  const cases: [unknown, object][] = [
    [
      APIError.generate(429, { error: { code: 'insufficient_quota', message: 'You exceeded your current quota' } }, undefined, h),
      { code: 'upstream_rate_limited', retryable: false },
    ],
    [
      APIError.generate(403, { error: { message: 'Project sk-live-abcdef123456 has no access' } }, undefined, h),
      { code: 'upstream_auth', status: 502, retryable: false },
    ],
    [
      APIError.generate(404, { error: { message: 'The model `gpt-9` does not exist' } }, undefined, h),
      { code: 'upstream_bad_request', message: /HTTP 404\): The model `gpt-9` does not exist/ },
    ],
    [APIError.generate(529, { error: { message: 'Overloaded' } }, undefined, h), { code: 'upstream_error', status: 503, retryable: true }],
    [
      APIError.generate(503, undefined, 'Service Unavailable', new Headers({ 'retry-after': '7' })),
      { code: 'upstream_error', status: 503, retryAfterMs: 7000 },
    ],
    [
      APIError.generate(500, undefined, 'Internal Server Error', new Headers({ 'retry-after-ms': '40' })),
      { code: 'upstream_error', status: 502, retryAfterMs: 40 },
    ],
    [APIError.generate(408, undefined, 'timeout', h), { code: 'upstream_timeout', retryable: true }],
    [APIError.generate(502, undefined, 'Bad Gateway', h), { code: 'upstream_error', status: 502, message: /failed \(HTTP 502\): Bad Gateway$/ }],
    [new APIError(undefined, { message: 'server_error mid-stream' }, undefined, undefined), { code: 'upstream_error', message: /mid-stream: server_error/ }],
    [new APIConnectionTimeoutError(), { code: 'upstream_timeout', message: /no response within 900 ms/ }],
    [new SyntaxError('Unexpected token'), { code: 'upstream_error', retryable: false, message: /malformed/ }],
  ]
  for (const [err, expected] of cases) {
    const mapped = llmFailure(err, ctx)
    t.ok(mapped instanceof ProviderError)
    t.match(mapped, { attempts: 2, ...expected })
    t.notMatch(mapped.message, 'abcdef123456', 'the key never shows')
  }
})

t.test('provider text that quotes the key is scrubbed', async (t) => {
  const err = APIError.generate(400, { error: { message: 'Bad key sk-live-abcdef123456 and masked sk-li****3456 here' } }, undefined, new Headers())
  const mapped = llmFailure(err, ctx)
  t.equal(mapped.message, 'The LLM provider at llm.example:443 refused the request (HTTP 400): Bad key [redacted] and masked [redacted] here')
})

t.test('tool parameters go out without the $schema dialect; the schema itself is neither changed nor mutated', async (t) => {
  const parameters = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { to: { type: 'string' } },
    required: ['to'],
    additionalProperties: false,
  }
  const [tool] = toSdkTools([{ name: 'mail__send', description: 'Send mail', parameters }])
  t.same(tool, {
    type: 'function',
    function: {
      name: 'mail__send',
      description: 'Send mail',
      parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'], additionalProperties: false },
    },
  })
  t.equal(parameters.$schema, 'https://json-schema.org/draft/2020-12/schema', 'the given object is untouched')
  const open = { type: 'object', additionalProperties: true }
  t.equal(toSdkTools([{ name: 'x', description: '', parameters: open }])[0]!.function.parameters, open, 'a schema without $schema passes as is')
})
