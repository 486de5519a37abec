import { setTimeout as sleep } from 'node:timers/promises'
import { Writable } from 'node:stream'
import t from 'tap'
import { createLogger, ManualClock } from '../../../core/index.js'
import type { NewRequestLog, Repos } from '../../../db/index.js'
import { RequestLogBuffer, type RequestLogOptions } from '../../../api/request-logs/buffer.js'

const DAY = 86_400_000

/** A buffer over a fake repository that records each batch (or fails every insert). */
function buffer(t: { teardown(fn: () => unknown): void }, o: Partial<RequestLogOptions> = {}, failInserts = false) {
  const batches: NewRequestLog[][] = []
  const prunedBefore: number[] = []
  const lines: string[] = []
  const repos = {
    requestLogs: {
      insertMany(rows: readonly NewRequestLog[]) {
        if (failInserts) throw new Error('SQLITE_BUSY: database is locked')
        batches.push([...rows])
      },
      prune(before: number) {
        prunedBefore.push(before)
        return 7
      },
    },
  } as unknown as Repos
  const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) })
  const clock = new ManualClock(100 * DAY)
  const b = new RequestLogBuffer(repos, clock, createLogger('info', sink), { retentionDays: 30, flushIntervalMs: 60_000, ...o })
  t.teardown(() => b.close())
  return { b, batches, prunedBefore, lines, clock }
}

let n = 0
const row = (): NewRequestLog => ({
  organization_id: 'org',
  environment_id: null,
  user_id: 'u',
  api_key_id: null,
  method: 'GET',
  route: '/r',
  status: 200,
  duration_ms: 1,
  request_id: `req-${++n}`,
  ip: null,
  created_at: 0,
})

t.test('rows are written in batches of maxBuffered, not one by one', async (t) => {
  const { b, batches } = buffer(t, { maxBuffered: 3 })
  const pushed: string[] = []
  const push = () => {
    const r = row()
    pushed.push(r.request_id)
    b.push(r)
  }
  push()
  push()
  t.equal(batches.length, 0, 'nothing written below the batch size')
  push()
  t.same(
    batches.map((x) => x.length),
    [3],
    'the third row flushes all three in one insert',
  )
  for (let i = 0; i < 7; i++) push()
  t.same(
    batches.map((x) => x.length),
    [3, 3, 3],
  )
  b.flush()
  t.same(
    batches.map((x) => x.length),
    [3, 3, 3, 1],
    'an explicit flush writes the remainder',
  )
  b.flush()
  t.equal(batches.length, 4, 'flushing an empty buffer writes nothing')
  t.same(
    batches.flat().map((r) => r.request_id),
    pushed,
    'every row once, in order',
  )
})

t.test('a timer flushes what is buffered', async (t) => {
  const { b, batches } = buffer(t, { maxBuffered: 100, flushIntervalMs: 10 })
  b.push(row())
  b.push(row())
  for (let i = 0; i < 50 && batches.length === 0; i++) await sleep(10)
  t.same(
    batches.map((x) => x.length),
    [2],
  )
})

t.test('close writes the remainder', async (t) => {
  const { b, batches } = buffer(t, { maxBuffered: 100 })
  b.push(row())
  b.close()
  t.same(
    batches.map((x) => x.length),
    [1],
  )
})

t.test('a failing insert drops the batch and logs, never throwing into the request path', async (t) => {
  const { b, lines } = buffer(t, { maxBuffered: 2 }, true)
  t.doesNotThrow(() => {
    b.push(row())
    b.push(row())
  })
  t.doesNotThrow(() => b.flush())
  const logged = lines.map((l) => JSON.parse(l))
  t.match(logged, [{ msg: 'request log flush failed; rows dropped', rows: 2 }])
})

t.test('prune deletes what is older than the retention period', async (t) => {
  const { b, prunedBefore, clock } = buffer(t, { retentionDays: 30 })
  t.equal(b.prune(), 7)
  t.same(prunedBefore, [70 * DAY])
  clock.advance(DAY)
  b.prune()
  t.same(prunedBefore, [70 * DAY, 71 * DAY])
})
