import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import t, { type Test } from 'tap'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

const KEY = 'sk-standin-test-key-0042'
const MODEL = 'text-embedding-3-small'

async function standIn(t: Test, synonyms?: string[][]): Promise<OpenAiStandIn> {
  const s = await startOpenAiStandIn({ apiKey: KEY, ...(synonyms ? { synonyms } : {}) })
  t.teardown(() => s.close())
  return s
}

const sdk = (s: OpenAiStandIn, o: { key?: string; timeout?: number } = {}) =>
  new OpenAI({ apiKey: o.key ?? KEY, baseURL: s.url, maxRetries: 0, timeout: o.timeout ?? 5000, organization: null, project: null, logLevel: 'off' })

function post(s: OpenAiStandIn, body: unknown): Promise<Response> {
  return fetch(`${s.url}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  })
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((sum, x, i) => sum + x * b[i]!, 0)
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a))

t.test('the SDK gets one unit vector per input, in order, through its default base64 encoding', async (t) => {
  const s = await standIn(t)
  const res = await sdk(s).embeddings.create({ model: MODEL, input: ['Free parking behind the building', 'Open on Saturdays'] })
  t.equal(s.requests[0]!.body.encoding_format, 'base64', 'the SDK asks for base64 unless told otherwise')
  t.equal(s.requests[0]!.path, '/v1/embeddings')
  t.match(res, { object: 'list', model: MODEL, usage: { prompt_tokens: Number, total_tokens: Number } })
  t.same(
    res.data.map((d) => [d.object, d.index]),
    [
      ['embedding', 0],
      ['embedding', 1],
    ],
  )
  for (const d of res.data) {
    t.equal(d.embedding.length, 1536, 'the model’s native size')
    t.ok(Math.abs(norm(d.embedding) - 1) < 1e-5, 'unit length')
  }
  const single = await sdk(s).embeddings.create({ model: MODEL, input: 'Free parking behind the building' })
  t.same(Array.from(single.data[0]!.embedding), Array.from(res.data[0]!.embedding), 'a string input is one input; vectors are deterministic')
})

t.test('float encoding as JSON numbers, and dimensions honoured', async (t) => {
  const s = await standIn(t)
  const res = await post(s, { model: MODEL, input: 'garden', dimensions: 64, encoding_format: 'float' })
  t.equal(res.status, 200)
  const body = await res.json()
  t.match(body, { object: 'list', data: [{ object: 'embedding', index: 0 }], model: MODEL })
  t.equal(body.data[0].embedding.length, 64)
  t.ok(body.data[0].embedding.every((x: unknown) => typeof x === 'number'))
  const viaSdk = await sdk(s).embeddings.create({ model: MODEL, input: 'garden', dimensions: 64 })
  t.same(Array.from(viaSdk.data[0]!.embedding), body.data[0].embedding, 'base64 and float carry the same float32 values')
})

t.test('similar texts share words; the synonym table makes different words mean the same', async (t) => {
  const s = await standIn(t)
  const embed = async (input: string[]) => (await sdk(s).embeddings.create({ model: MODEL, input })).data.map((d) => d.embedding)
  const [car, auto, cagri, folded, garden] = await embed(['car', 'auto', 'ÇAĞRI Merkezi', 'cagri merkezi', 'garden'])
  t.ok(Math.abs(dot(cagri!, folded!) - 1) < 1e-5, 'case and Turkish diacritics are folded')
  t.ok(Math.abs(dot(car!, garden!)) < 0.5, 'different words are not alike')
  t.ok(dot(car!, auto!) < 0.5, 'no synonyms by default')
  s.synonyms(['car', 'auto', 'automobile'])
  const [car2, auto2, rental] = await embed(['car', 'AUTO', 'automobile rental'])
  t.ok(Math.abs(dot(car2!, auto2!) - 1) < 1e-5, 'a synonym maps onto its group’s first word')
  t.ok(dot(car2!, rental!) > 0.5, 'and counts as that word in a longer text')
})

t.test('refuses what OpenAI refuses, with its error body', async (t) => {
  const s = await standIn(t)
  const cases: [unknown, number, string | null][] = [
    [{ model: 'no-such-model', input: 'x' }, 404, null],
    [{ model: MODEL, input: '' }, 400, 'input'],
    [{ model: MODEL, input: [] }, 400, 'input'],
    [{ model: MODEL, input: [[1, 2, 3]] }, 400, 'input'],
    [{ model: MODEL, input: 'x', dimensions: 4096 }, 400, 'dimensions'],
    [{ model: 'text-embedding-ada-002', input: 'x', dimensions: 256 }, 400, 'dimensions'],
    [{ model: MODEL, input: 'x', encoding_format: 'int8' }, 400, 'encoding_format'],
    [{ input: 'x' }, 400, 'model'],
  ]
  for (const [body, status, param] of cases) {
    const res = await post(s, body)
    t.equal(res.status, status, JSON.stringify(body))
    t.match(await res.json(), { error: { type: 'invalid_request_error', param, message: String } })
  }
  const refused = await sdk(s, { key: 'sk-wrong-key-abcdef-9876' })
    .embeddings.create({ model: MODEL, input: 'x' })
    .catch((e: unknown) => e)
  t.equal((refused as APIError).status, 401)
  t.match(s.requests.at(-1), { path: '/v1/embeddings', authorized: false, status: 401 }, 'a refused key is logged too')
})

t.test('injected failures and pacing apply to embeddings', async (t) => {
  const s = await standIn(t)
  s.fail({ kind: 'status', status: 503, retryAfterMs: 20 })
  const err = await sdk(s)
    .embeddings.create({ model: MODEL, input: 'x' })
    .catch((e: unknown) => e)
  t.ok(err instanceof APIError && err.status === 503 && err.headers?.get('retry-after-ms') === '20', 'status with Retry-After')
  t.equal(s.requests.at(-1)!.injected.failure, 'status 503')

  s.fail({ kind: 'hang' })
  t.ok(
    (await sdk(s, { timeout: 200 })
      .embeddings.create({ model: MODEL, input: 'x' })
      .catch((e: unknown) => e)) instanceof APIConnectionTimeoutError,
    'hang → timeout',
  )
  // The SDK's timeout ends with the response head; a stalled body is the caller's to abort.
  s.fail({ kind: 'stall', afterChunks: 0 })
  const stalled = await sdk(s)
    .embeddings.create({ model: MODEL, input: 'x' }, { signal: AbortSignal.timeout(200) })
    .catch((e: unknown) => e)
  t.ok(stalled instanceof Error && s.requests.at(-1)!.status === 200, 'stall → headers, then no body until the caller gives up')
  s.fail({ kind: 'reset', afterChunks: 0 })
  t.ok(
    (await sdk(s)
      .embeddings.create({ model: MODEL, input: 'x' })
      .catch((e: unknown) => e)) instanceof APIConnectionError,
    'reset → connection error',
  )
  t.equal(s.requests.at(-1)!.outcome, 'reset')

  s.pace({ firstTokenLatencyMs: 150 })
  const t0 = performance.now()
  await sdk(s).embeddings.create({ model: MODEL, input: 'x' })
  t.ok(performance.now() - t0 >= 140, 'answered after the configured latency')
  t.equal(s.requests.at(-1)!.injected.firstTokenMs, 150)
})
