import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startOpenAiStandIn, type OpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { KB, createDoc, search, setup, type Scene } from './kb-fixtures.js'

// The issue: "Optional embeddings (OpenAI-compatible embeddings when configured) for hybrid
// ranking; without them BM25 alone." Everything here runs the real openai SDK against the stand-in
// over HTTP; its vectors are hashed bags of words, and its synonym table makes "auto" mean "car".

const KEY = 'sk-platform-embed-key-0001'
const MODEL = 'text-embedding-3-small'
const SYNONYMS = [['car', 'auto', 'automobile']]
const DOCS = {
  car: ['Car rental', 'A car can be rented at the front desk for a day or a week.'],
  parking: ['Parking', 'Free parking is available in the garage behind the building.'],
  hours: ['Opening hours', 'The clinic is open Monday to Friday from 9 am to 6 pm.'],
} as const
type Name = keyof typeof DOCS
type HitWithRanking = Awaited<ReturnType<typeof search>>[number] & { ranking: 'bm25' | 'hybrid' }

async function provider(t: Test, o: { port?: number; apiKey?: string } = {}): Promise<OpenAiStandIn> {
  const s = await startOpenAiStandIn({ apiKey: o.apiKey ?? KEY, synonyms: SYNONYMS, ...(o.port ? { port: o.port } : {}) })
  t.teardown(() => s.close())
  return s
}

async function hybridScene(t: Test, url: string, env: Record<string, string> = {}): Promise<Scene> {
  return setup(t, { env: { OZAN_EMBEDDINGS_MODEL: MODEL, OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: url, ...env } })
}

async function corpus(s: Scene, headers?: Record<string, string>): Promise<Record<Name, string>> {
  const ids = {} as Record<Name, string>
  for (const [name, [title, text]] of Object.entries(DOCS)) ids[name as Name] = (await createDoc(s, title, text, headers)).id
  return ids
}

const hits = (s: Scene, q: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  search(s, q, extra, headers) as Promise<HitWithRanking[]>
const idle = (s: Scene) => s.a.services.knowledge.idle()
const vectorCount = (s: Scene) => (s.a.db.prepare('SELECT count(*) AS n FROM knowledge_vectors').get() as { n: number }).n
const chunkCount = (s: Scene) => (s.a.db.prepare('SELECT count(*) AS n FROM knowledge_chunks').get() as { n: number }).n
const embeddingCalls = (p: OpenAiStandIn) => p.requests.filter((r) => r.path === '/v1/embeddings')
const logged = (s: Scene, msg: string) => s.a.logs.filter((l) => l.includes(msg))
const advance = (s: Scene, ms: number) => (s.a.clock as ManualClock).advance(ms)

t.test('without OZAN_EMBEDDINGS_MODEL nothing is embedded and search is BM25 alone', async (t) => {
  const p = await provider(t)
  const s = await setup(t, { env: { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: p.url } })
  const ids = await corpus(s)
  await idle(s)
  const found = await hits(s, 'parking garage')
  t.equal(found[0]?.document.id, ids.parking)
  t.ok(
    found.every((h) => h.ranking === 'bm25' && h.score > 0.1),
    'BM25 scores',
  )
  t.same(await hits(s, 'auto'), [], 'no shared word, no hit')
  t.equal(p.requests.length, 0, 'the provider is never called')
  t.equal(vectorCount(s), 0)
})

t.test('hybrid ranking finds a chunk by meaning alone and fuses both rankings with RRF', async (t) => {
  const p = await provider(t)
  const s = await hybridScene(t, p.url, { OZAN_EMBEDDINGS_DIMENSIONS: '256' })
  const ids = await corpus(s)
  await idle(s)
  t.equal(vectorCount(s), chunkCount(s), 'every chunk got a vector')
  const rows = s.a.db.prepare('SELECT model, dimensions, length(vector) AS bytes FROM knowledge_vectors').all() as {
    model: string
    dimensions: number
    bytes: number
  }[]
  t.ok(
    rows.every((r) => r.model === MODEL && r.dimensions === 256 && r.bytes === 1024),
    'model, size and float32 bytes recorded',
  )
  t.ok(
    embeddingCalls(p).every((r) => r.authorized && r.body.model === MODEL && r.body.dimensions === 256),
    'the configured model and dimensions are asked for',
  )

  const auto = await hits(s, 'auto')
  t.equal(auto[0]?.document.id, ids.car, '"auto" finds the car rental, which never says "auto"')
  t.equal(auto[0]?.ranking, 'hybrid')
  t.equal(auto[0]?.score, Number((1 / 61).toPrecision(6)), 'first in the vector list only: 1/(60+1)')
  t.equal(auto[0]?.snippet, DOCS.car[1], 'a short chunk is its own snippet')

  const parking = await hits(s, 'parking garage')
  t.equal(parking[0]?.document.id, ids.parking)
  t.equal(parking[0]?.score, Number((2 / 61).toPrecision(6)), 'first in both lists: 2/61')
  t.same(
    [...parking].sort((a, b) => b.score - a.score),
    parking,
    'best first',
  )
  t.ok(parking.every((h) => h.ranking === 'hybrid'))

  t.notOk(
    (await hits(s, 'auto', { document_ids: [ids.parking, ids.hours] })).some((h) => h.document.id === ids.car),
    'the document filter applies to vector hits',
  )
  const before = embeddingCalls(p).length
  t.same(await hits(s, '?!*'), [], 'a query without letters or digits still finds nothing')
  t.equal(embeddingCalls(p).length, before, 'and is not embedded')

  const envs = expectStatus(await s.send('GET', '/api/v1/projects'), 200, 'projects')[0].environments as { id: string; is_default: boolean }[]
  const kb = s.a.services.knowledge.forScope({ organizationId: s.owner.organizationId, environmentId: envs.find((e) => e.is_default)!.id })
  t.equal((await kb.search('automobile', 3, new AbortController().signal))[0]?.document_id, ids.car, 'the runtime adapter ranks the same way')
  p.pace({ firstTokenLatencyMs: 2000 })
  const ac = new AbortController()
  setTimeout(() => ac.abort(new Error('barge-in')), 50)
  await t.rejects(kb.search('auto', 3, ac.signal), /barge-in/, 'a turn aborted while its query is embedded rejects, it does not fall back')
})

t.test('a long document is embedded in batches of at most 64 chunks', async (t) => {
  const p = await provider(t)
  const s = await hybridScene(t, p.url)
  const text = Array.from({ length: 1000 }, (_, i) => `Sentence ${i} talks about the garden, its roses and its benches.`).join(' ')
  p.fail({ kind: 'status', status: 429, retryAfterMs: 10 }, { kind: 'status', status: 500 })
  const doc = await createDoc(s, 'Garden', text)
  t.ok(doc.chunk_count > 64, `${doc.chunk_count} chunks`)
  await idle(s)
  t.same(
    embeddingCalls(p)
      .slice(0, 2)
      .map((r) => r.status),
    [429, 500],
    'a rate limit and a server error were retried',
  )
  const sizes = embeddingCalls(p)
    .filter((r) => r.status === 200)
    .map((r) => (r.body.input as string[]).length)
  t.ok(sizes.length >= 2 && sizes.every((n) => n <= 64), `batches of ${sizes.join(', ')}`)
  t.equal(
    sizes.reduce((a, b) => a + b, 0),
    doc.chunk_count,
    'each chunk embedded once',
  )
  t.equal(vectorCount(s), doc.chunk_count)
})

t.test('provider down while indexing: the document is stored, BM25 serves, vectors come later', async (t) => {
  const first = await provider(t)
  const port = Number(new URL(first.url).port)
  await first.close()
  const s = await hybridScene(t, first.url)
  const ids = await corpus(s)
  await idle(s)
  t.equal(vectorCount(s), 0, 'no vectors while the provider is down')
  t.ok(logged(s, 'embedding knowledge chunks stopped').length >= 1, 'the failure is logged')
  const found = await hits(s, 'parking')
  t.equal(found[0]?.document.id, ids.parking, 'BM25 finds the new document at once')
  t.equal(found[0]?.ranking, 'bm25')

  const back = await provider(t, { port })
  t.same(await hits(s, 'auto'), [], 'within the cooldown the provider is not asked')
  t.equal(back.requests.length, 0)
  advance(s, 31_000)
  t.equal((await hits(s, 'parking'))[0]?.ranking, 'bm25', 'the first search after the cooldown embeds its query, but no chunk has a vector yet')
  await idle(s)
  t.equal(vectorCount(s), chunkCount(s), 'that search started the catch-up, which filled every vector')
  const auto = await hits(s, 'auto')
  t.equal(auto[0]?.document.id, ids.car)
  t.equal(auto[0]?.ranking, 'hybrid')
  t.notOk(
    s.a.logs.some((l) => l.includes(KEY)),
    'the key never reaches a log line',
  )
})

t.test('provider failing at query time: BM25 results, no error, a warning; hybrid again after the cooldown', async (t) => {
  const p = await provider(t)
  const s = await hybridScene(t, p.url, { OZAN_EMBEDDINGS_TIMEOUT_MS: '300' })
  const ids = await corpus(s)
  await idle(s)
  const asked = embeddingCalls(p).length
  p.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 503 })
  const down = await hits(s, 'parking garage')
  t.equal(embeddingCalls(p).length, asked + 2, 'the query embedding was tried twice (one retry)')
  t.equal(down[0]?.document.id, ids.parking)
  t.ok(
    down.every((h) => h.ranking === 'bm25' && h.score > 0.1),
    'BM25 ranking and scores',
  )
  t.equal(logged(s, 'query embedding failed').length, 1, 'one warning')
  const calls = embeddingCalls(p).length
  t.same(await hits(s, 'auto'), [], 'during the cooldown: BM25 at once, without asking')
  t.equal(embeddingCalls(p).length, calls)

  advance(s, 31_000)
  p.fail({ kind: 'hang' })
  const t0 = performance.now()
  t.equal((await hits(s, 'parking'))[0]?.ranking, 'bm25', 'a hanging provider times out into BM25')
  t.ok(performance.now() - t0 < 2000, 'after OZAN_EMBEDDINGS_TIMEOUT_MS, not retried')
  t.equal(logged(s, 'query embedding failed').length, 2)
  advance(s, 31_000)
  t.equal((await hits(s, 'auto'))[0]?.document.id, ids.car, 'back to hybrid')
})

t.test('deleting a document deletes its vectors; another model’s vectors are ignored and replaced', async (t) => {
  const p = await provider(t)
  const s = await hybridScene(t, p.url)
  const ids = await corpus(s)
  await idle(s)
  const total = vectorCount(s)
  expectStatus(await s.send('DELETE', `${KB}/documents/${ids.car}`), 204, 'delete')
  t.equal(vectorCount(s), total - 1, 'the cascade removed the chunk’s vector')
  t.notOk(
    (await hits(s, 'auto')).some((h) => h.document.id === ids.car),
    'and search forgot it at once',
  )

  s.a.db.prepare("UPDATE knowledge_vectors SET model = 'older-model'").run()
  expectStatus(await s.send('DELETE', `${KB}/documents/${ids.hours}`), 204, 'delete')
  t.same(
    (await hits(s, 'garage')).map((h) => h.ranking),
    ['bm25'],
    'vectors of another model are not compared',
  )
  const car = await createDoc(s, ...DOCS.car)
  await idle(s)
  const models = s.a.db.prepare('SELECT DISTINCT model FROM knowledge_vectors').all() as { model: string }[]
  t.same(models, [{ model: MODEL }], 'the next pass re-embedded the stale chunks')
  t.equal((await hits(s, 'auto'))[0]?.document.id, car.id)
})

t.test('vectors never cross environments or organizations', async (t) => {
  const p = await provider(t)
  const s = await hybridScene(t, p.url)
  const staging = { 'x-environment-id': 'staging' }
  const ids = await corpus(s)
  const stagingDoc = await createDoc(s, 'Staging fleet', 'Staging only: one automobile is parked on the roof.', staging)
  await idle(s)
  t.same(
    (await hits(s, 'auto', { top_k: 50 }, staging)).map((h) => h.document.id),
    [stagingDoc.id],
    'staging sees only its own chunk',
  )
  const inDefault = await hits(s, 'auto', { top_k: 50 })
  t.equal(inDefault[0]?.document.id, ids.car)
  t.notOk(
    inDefault.some((h) => h.document.id === stagingDoc.id),
    'and the default environment never sees staging’s',
  )

  const other = await newOwner(s.a)
  const mine = expectStatus(
    await s.a.request('POST', `${KB}/documents`, { token: other.token, body: { title: 'Bikes', text: 'Bicycles can be parked at the entrance.' } }),
    201,
    'create',
  )
  await idle(s)
  const theirs = expectStatus(
    await s.a.request('POST', `${KB}/search`, { token: other.token, body: { query: 'auto', top_k: 50 } }),
    200,
    'search',
  ) as HitWithRanking[]
  t.ok(
    theirs.every((h) => h.document.id === mine.id),
    'another organization finds only its own documents',
  )
  const filtered = expectStatus(
    await s.a.request('POST', `${KB}/search`, { token: other.token, body: { query: 'auto', document_ids: [ids.car] } }),
    200,
    'search',
  )
  t.same(filtered, [], 'naming another organization’s document finds nothing')
})

t.test('an organization’s stored openai credential is used over the platform key', async (t) => {
  const platform = await provider(t)
  const own = await provider(t, { apiKey: 'sk-org-embed-key-0002' })
  const s = await hybridScene(t, platform.url, { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  expectStatus(
    await s.send('PUT', '/api/v1/credentials', { body: { provider: 'openai', fields: { api_key: 'sk-org-embed-key-0002', base_url: own.url } } }),
    200,
    'store credential',
  )
  const ids = await corpus(s)
  await idle(s)
  t.equal((await hits(s, 'auto'))[0]?.document.id, ids.car)
  t.ok(embeddingCalls(own).length >= 2 && embeddingCalls(own).every((r) => r.authorized), 'indexing and queries went to the organization’s server with its key')
  t.equal(platform.requests.length, 0, 'the platform provider was not used')

  const other = await newOwner(s.a)
  expectStatus(
    await s.a.request('POST', `${KB}/documents`, { token: other.token, body: { title: 'Bikes', text: 'Bicycles can be parked at the entrance.' } }),
    201,
    'create',
  )
  await idle(s)
  t.ok(
    embeddingCalls(platform).length >= 1 && embeddingCalls(platform).every((r) => r.authorized),
    'an organization without a credential uses the platform key',
  )
})
