import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { ApiError } from '../../../api/http/errors.js'
import { ValidationError } from '../../../api/http/validation.js'
import { ParseRefused, ParserPool, type ParserPoolOptions } from '../../../api/knowledge-base/parser-pool.js'
import { extractText } from '../../../api/knowledge-base/parsers.js'
import { fixture } from './kb-fixtures.js'
import { bigPdf, repetitiveDocx } from './parser-docs.js'

// The parsers run in worker threads so that a hostile or pathological upload cannot stall the
// server's event loop: a deadline, a heap cap, a bounded queue, and a worker that dies is replaced.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const MD = Buffer.from('# Hours\n\nOpen **daily**.')
const detailOf = (err: unknown) => (err instanceof ValidationError ? err.detail : err)

function pool(t: Test, o: ParserPoolOptions = {}): ParserPool {
  const p = new ParserPool({ size: 1, ...o })
  t.teardown(() => p.close())
  return p
}

t.test('the event loop keeps ticking while a big PDF is parsed', async (t) => {
  const p = pool(t)
  await p.parse('markdown', MD) // a warm worker: what is measured is the parse, not the start
  let last = performance.now()
  let maxGap = 0
  let ticks = 0
  const timer = setInterval(() => {
    const now = performance.now()
    maxGap = Math.max(maxGap, now - last)
    last = now
    ticks++
  }, 10)
  const started = performance.now()
  const text = await p.parse('pdf', bigPdf(400)).finally(() => clearInterval(timer))
  const elapsed = performance.now() - started
  t.match(text, /Page 400 line 40: the clinic accepts walk-in patients/, 'the whole PDF was read')
  t.ok(maxGap < 250, `no stall of the loop: longest gap ${Math.round(maxGap)} ms over a ${Math.round(elapsed)} ms parse`)
  t.ok(elapsed > 4 * maxGap && ticks >= 5, `the loop ran all along (${ticks} ticks)`)
})

t.test('a parse past its deadline is a 422 unreadable_document; the next file gets a new worker', async (t) => {
  const p = pool(t, { deadlineMs: 300 })
  await p.parse('markdown', MD) // the deadline counts from a started worker; start it beforehand
  const started = performance.now()
  const err = await extractText('pdf', bigPdf(1500), p).catch((e: unknown) => e) // seconds of work
  t.match(detailOf(err), [{ type: 'unreadable_document', loc: ['body', 'file'], msg: /took too long \(over 0\.3 s\)/ }])
  t.ok(performance.now() - started < 2_000, 'the caller did not wait for the parse to finish')
  t.equal(await extractText('markdown', MD, p), 'Hours\n\nOpen daily.', 'a fresh worker reads the next file')
})

t.test('a worker that runs out of memory is a 422, and is replaced', async (t) => {
  // A small heap cap, and a DOCX that is 22 KB zipped but a few MB of XML: mammoth's tree outgrows it.
  const p = pool(t, { memoryMb: 32 })
  const err = await extractText('docx', repetitiveDocx(50_000), p).catch((e: unknown) => e)
  t.match(detailOf(err), [{ type: 'unreadable_document', loc: ['body', 'file'], msg: /could not be parsed: the parser ran out of memory or crashed/ }])
  const text = await extractText('docx', fixture('cancellation.docx'), p)
  t.match(text, /Cancellation policy/, 'the next file is read by a new worker')
})

t.test('past the queue bound a file is refused with 503 service_unavailable', async (t) => {
  const p = pool(t, { maxQueue: 1 })
  const running = p.parse('pdf', bigPdf(100))
  const queued = p.parse('markdown', MD)
  const refused = await p.parse('html', Buffer.from('<p>x</p>')).catch((e: unknown) => e)
  t.ok(refused instanceof ApiError, 'an ApiError')
  t.match(refused, { code: 'service_unavailable', status: 503, headers: { 'Retry-After': '5' } })
  t.match(await running, /Page 100 line 40/, 'the running parse finishes')
  t.equal(await queued, 'Hours\n\nOpen daily.', 'the queued one runs next')
  t.equal(await p.parse('html', Buffer.from('<p>x</p>')), 'x', 'room again once the queue drained')
})

t.test('the parsers keep their own refusals, as before the move to a worker', async (t) => {
  const p = pool(t)
  const cases: [Parameters<typeof extractText>[0], Buffer, RegExp][] = [
    ['pdf', fixture('corrupt.pdf'), /damaged/],
    ['pdf', Buffer.from('no header'), /not a PDF/],
    ['docx', Buffer.from('not a zip'), /not a DOCX/],
    ['markdown', Buffer.from('Caf\xe9', 'latin1'), /not UTF-8/],
    ['html', Buffer.from([0x3c, 0x00, 0x3e]), /binary/],
    ['pdf', Buffer.alloc(0), /empty/],
  ]
  for (const [kind, data, msg] of cases) {
    const err = await extractText(kind, data, p).catch((e: unknown) => e)
    t.match(detailOf(err), [{ type: 'unreadable_document', loc: ['body', 'file'], msg }], `${kind}: ${msg}`)
  }
  await t.rejects(p.parse('pdf', Buffer.from('no header')), ParseRefused, 'the pool itself says ParseRefused')
})

t.test('close() fails running and queued parses with 503, and the pool starts again after', async (t) => {
  const p = pool(t)
  const running = p.parse('pdf', bigPdf(200)).catch((e: unknown) => e)
  const queued = p.parse('markdown', MD).catch((e: unknown) => e)
  await p.close()
  t.match(await running, { code: 'service_unavailable' })
  t.match(await queued, { code: 'service_unavailable' })
  t.equal(await p.parse('markdown', MD), 'Hours\n\nOpen daily.')
})

t.test('under the tsx CLI the worker loads TypeScript, and an idle pool does not hold the process open', async (t) => {
  // The default idle exit is 30 s: a process that ends well before it did not wait on a worker.
  const script = `import { extractText } from './api/knowledge-base/parsers.ts'
    import fs from 'node:fs'
    console.log(await extractText('pdf', fs.readFileSync('test/fixtures/knowledge/insurance.pdf')))`
  const started = performance.now()
  const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
    const child = execFile(path.join(ROOT, 'node_modules/.bin/tsx'), ['--input-type=module', '-e', script], { cwd: ROOT, timeout: 25_000 }, (err, stdout) =>
      resolve({ stdout, code: err ? (child.exitCode ?? -1) : 0 }),
    )
  })
  t.equal(code, 0, 'exit 0')
  t.match(stdout, /We accept the Allianz and Axa private insurance plans\./)
  t.ok(performance.now() - started < 20_000, 'exited without waiting for the idle timeout')
})
