/**
 * Scenario knowledge-search: p95 latency of a knowledge-base search (POST /knowledge-base/search's
 * service call: query folding and quoting, the FTS5/BM25 query over one environment, snippets for
 * the top 5) with 10k and then 100k chunks in the index. Goal: p95 ≤ 5 ms at 100k chunks.
 *
 * The app is built as `npm start` builds it (real SQLite file in WAL mode under a temp data dir)
 * and documents are added through the service, so chunking, folding and indexing are the real
 * ones. The text is synthetic: stems drawn with a Zipf law (s = 1.07, like natural text) from common
 * English and Turkish function words followed by 30,000 made-up content stems spelled with Turkish
 * letters, 40% of content words inflected with a Turkish or English suffix; ~1,000-character
 * chunks. Queries are 1–4 content words among the 3,000 most frequent stems (inflected alike),
 * half with function words around them ("what is the … of …"): common words with long posting
 * lists, the expensive case. Latency is measured in-process (no HTTP: the
 * REST overhead is rest-auth-get's subject), one query at a time, after a warm-up.
 *
 *   npx tsx bench/knowledge-search.ts [--sizes 10000,100000] [--queries 1000] [--quick] [--keep]
 *
 * stdout: the JSON result, then one summary line. The JSON also goes to bench/results/.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createLogger, loadConfig, loadSecrets, systemClock } from '../core/index.js'
import { createApp, type Services } from '../api/index.js'
import { migrate, openDatabase } from '../db/index.js'
import { gitState, machineInfo, note, runStamp, writeResult } from './lib/report.js'

const NAME = 'knowledge-search'
const GOAL_MS = 5
const { values: args } = parseArgs({
  options: { sizes: { type: 'string' }, queries: { type: 'string' }, quick: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
})
const sizes = (args.sizes ?? (args.quick ? '2000,10000' : '10000,100000')).split(',').map(Number)
const queryCount = Number(args.queries ?? (args.quick ? 300 : 1000))
if (sizes.some((n) => !Number.isInteger(n) || n <= 0) || !(queryCount > 0)) throw new Error('--sizes and --queries take positive integers')

/** A deterministic generator (mulberry32), so every run indexes and asks the same things. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
const random = rng(42)
const FUNCTION_WORDS = 'the of and to a in is for on that with as at by it be this are or from ve bir bu da de ile için çok daha gibi ama olarak en her'.split(
  ' ',
)
const CONSONANTS = [...'bcçdfgğhjklmnprsştvyz']
const VOWELS = [...'aeıioöuü']
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
const syllable = () => pick(CONSONANTS) + pick(VOWELS) + (random() < 0.3 ? pick(CONSONANTS) : '')
/** Inflections, Turkish and English: a stem appears in several forms, as in real text. */
const SUFFIXES = ['lar', 'ler', 'ı', 'i', 'da', 'de', 'dan', 'ın', 'in', 'ım', 'ları', 'leri', 'yla', 's', 'ing', 'ed']
const STEMS = [...FUNCTION_WORDS]
for (const seen = new Set(STEMS); STEMS.length < FUNCTION_WORDS.length + 30_000; ) {
  const stem = Array.from({ length: 2 + Math.floor(random() * 2) }, syllable).join('')
  if (!seen.has(stem)) STEMS.push(stem), seen.add(stem)
}
const inflect = (rank: number) => STEMS[rank]! + (rank >= FUNCTION_WORDS.length && random() < 0.4 ? pick(SUFFIXES) : '')
// Zipf's law over stems by inverse transform over the cumulative weights.
const CUMULATIVE: number[] = []
STEMS.reduce((sum, _, rank) => (CUMULATIVE.push(sum + 1 / (rank + 1) ** 1.07), CUMULATIVE.at(-1)!), 0)
function zipfWord(): string {
  const target = random() * CUMULATIVE.at(-1)!
  let lo = 0
  let hi = CUMULATIVE.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (CUMULATIVE[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return inflect(lo)
}
function documentText(chars: number): string {
  const sentences: string[] = []
  let length = 0
  while (length < chars) {
    const words = Array.from({ length: 8 + Math.floor(random() * 12) }, zipfWord)
    const s = words.join(' ').replace(/^./, (c) => c.toLocaleUpperCase('tr')) + '.'
    sentences.push(s)
    length += s.length + 1
  }
  return sentences.join(' ')
}
function query(): string {
  const content = Array.from({ length: 1 + Math.floor(random() * 4) }, () => inflect(FUNCTION_WORDS.length + Math.floor(random() * 3000)))
  return random() < 0.5 ? content.join(' ') : `what is the ${content.join(' of ')}?`
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const round = (n: number) => Math.round(n * 1000) / 1000

async function main(): Promise<void> {
  const stamp = runStamp()
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-bench-kb-'))
  const config = loadConfig({ OZAN_DATA_DIR: tmp, OZAN_LOG_LEVEL: 'warn' })
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const app = createApp({ db, config, secrets: loadSecrets(config), logger: createLogger('warn'), clock: systemClock })
  const knowledge: Services['knowledge'] = app.services.knowledge
  const org = app.services.repos.organizations.create('Bench', null, Date.now())
  const env = app.services.repos.projects.defaultProjectEnvironment(org.id, 'dev')!
  type Caller = Parameters<Services['knowledge']['search']>[0]
  const caller = { organizationId: org.id, environmentId: env.id, userId: org.id } as Caller

  const results: Record<string, unknown>[] = []
  let chunks = 0
  let docs = 0
  let buildMs = 0
  try {
    for (const target of [...sizes].sort((a, b) => a - b)) {
      note(`indexing up to ${target} chunks`)
      const t0 = performance.now()
      while (chunks < target) {
        const doc = knowledge.create(caller, { title: `Document ${++docs} ${zipfWord()}`, text: documentText(9_500), metadata: {} })
        chunks += doc.chunk_count
      }
      buildMs += performance.now() - t0
      db.pragma('wal_checkpoint(TRUNCATE)')
      for (let i = 0; i < 100; i++) await knowledge.search(caller, { query: query(), top_k: 5 })
      const times: number[] = []
      let hits = 0
      for (let i = 0; i < queryCount; i++) {
        const q = query()
        const t = performance.now()
        hits += (await knowledge.search(caller, { query: q, top_k: 5 })).length
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      const r = {
        chunks,
        documents: docs,
        queries: queryCount,
        mean_hits: round(hits / queryCount),
        p50_ms: round(percentile(times, 50)),
        p95_ms: round(percentile(times, 95)),
        p99_ms: round(percentile(times, 99)),
        max_ms: round(times.at(-1)!),
        index_build_s: round(buildMs / 1000),
        db_mb: round(fs.statSync(config.databaseFile).size / 2 ** 20),
      }
      note(`${chunks} chunks: p50 ${r.p50_ms} ms, p95 ${r.p95_ms} ms, p99 ${r.p99_ms} ms (mean ${r.mean_hits} hits)`)
      results.push(r)
    }
  } finally {
    await app.close()
    db.close()
    if (args.keep) note(`kept ${tmp}`)
    else fs.rmSync(tmp, { recursive: true, force: true })
  }

  const largest = results.at(-1) as { chunks: number; p95_ms: number }
  const json = {
    bench: NAME,
    started_at: stamp,
    machine: machineInfo(),
    git: gitState(),
    settings: {
      top_k: 5,
      queries_per_size: queryCount,
      warmup_queries: 100,
      chunk_chars: 1000,
      vocabulary_stems: STEMS.length,
      suffixes: SUFFIXES.length,
      zipf_s: 1.07,
    },
    sizes: results,
    goal: `p95 ≤ ${GOAL_MS} ms at 100000 chunks`,
    goal_met: largest.chunks >= 100_000 ? largest.p95_ms <= GOAL_MS : null,
  }
  writeResult(NAME, stamp, json)
  process.stdout.write(JSON.stringify(json, null, 2) + '\n')
  const parts = results.map((r) => `${r.chunks} chunks p95 ${r.p95_ms} ms`)
  process.stdout.write(
    `${NAME}: ${parts.join(', ')} (goal ≤ ${GOAL_MS} ms at 100k${json.goal_met === null ? ', not measured' : json.goal_met ? ': met' : ': missed'})\n`,
  )
}

main().catch((err: unknown) => {
  process.stderr.write(`${NAME}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
