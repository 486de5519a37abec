// The listing readers' bounds and shapes, against a local HTTP server: a listing is read only up
// to MAX_LISTING_BYTES, keeps at most MAX_LISTED_ITEMS, skips records of the wrong shape, never
// follows a redirect, and the cache holds at most its bound.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import { ListingCache } from '../../../api/providers/cache.js'
import {
  ListingError,
  MAX_LISTED_ITEMS,
  MAX_LISTING_BYTES,
  listDeepgramModels,
  listOpenAiModels,
  openAiModelsFor,
  parseEspeakVoices,
} from '../../../api/providers/listings/index.js'

async function server(t: Test, handler: http.RequestListener): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const s = http.createServer((req, res) => {
    hits++
    handler(req, res)
  })
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    s.closeAllConnections()
    return new Promise<void>((r) => s.close(() => r()))
  })
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, hits: () => hits }
}

const access = (baseUrl: string, timeoutMs = 2000) => ({ apiKey: 'k', baseUrl, fetch: globalThis.fetch, signal: AbortSignal.timeout(timeoutMs) })
const reason = async (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof ListingError ? err.reason : `threw ${err}`),
  )

t.test('a body over the byte bound is cut off, declared or streamed', async (t) => {
  const declared = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_LISTING_BYTES + 1) })
    res.write('{"data":[')
  })
  t.equal(await reason(listOpenAiModels(access(`${declared.url}/v1`))), 'upstream_error', 'a declared length over the bound is refused unread')
  const streamed = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    for (let i = 0; i < MAX_LISTING_BYTES / chunk.length + 2; i++) res.write(chunk)
    res.end('{}')
  })
  t.equal(await reason(listOpenAiModels(access(`${streamed.url}/v1`))), 'upstream_error', 'a chunked body past the bound is cancelled')
})

t.test('items are bounded in count, and records of the wrong shape are skipped', async (t) => {
  const many = Array.from({ length: MAX_LISTED_ITEMS + 50 }, (_, i) => ({ id: `model-${i}`, object: 'model' }))
  const s = await server(t, (req, res) => {
    const body =
      req.url === '/v1/models'
        ? { object: 'list', data: [{ id: '' }, { id: 42 }, { nope: true }, ...many] }
        : { stt: [{ canonical_name: 'nova-3-general', languages: ['en', 7, 'x'.repeat(40)] }, { name: 'no canonical name' }], tts: 'not a list' }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  const models = await listOpenAiModels(access(`${s.url}/v1`))
  t.equal(models.length, MAX_LISTED_ITEMS - 3, 'the first MAX_LISTED_ITEMS records are looked at; the three malformed ones are dropped')
  t.equal(models[0], 'model-0')
  t.equal(await reason(listDeepgramModels(access(s.url))), 'upstream_error', 'tts that is not a list is not a Deepgram listing')
})

t.test("Deepgram's records become resources; languages outside the shape are dropped", async (t) => {
  const s = await server(t, (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ stt: [{ canonical_name: 'nova-3-general', name: 'general-nova-3', languages: ['en', 7, 'x'.repeat(40)] }, { name: 'nameless' }] }))
  })
  t.same(await listDeepgramModels(access(s.url)), { stt: [{ id: 'nova-3-general', name: 'general-nova-3', languages: ['en'] }], tts: [] })
})

t.test('a redirect is not followed; a non-JSON or non-list body is an upstream error; a hang is a timeout', async (t) => {
  const target = await server(t, (_req, res) => res.writeHead(200).end('{"object":"list","data":[{"id":"elsewhere"}]}'))
  const redirect = await server(t, (_req, res) => res.writeHead(302, { location: `${target.url}/v1/models` }).end())
  t.equal(await reason(listOpenAiModels(access(`${redirect.url}/v1`))), 'upstream_error')
  t.equal(target.hits(), 0, 'the redirect target was never asked')
  const html = await server(t, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'))
  t.equal(await reason(listOpenAiModels(access(`${html.url}/v1`))), 'upstream_error')
  const wrong = await server(t, (_req, res) => res.writeHead(200).end('{"models":[]}'))
  t.equal(await reason(listOpenAiModels(access(`${wrong.url}/v1`))), 'upstream_error')
  const hang = await server(t, () => {})
  t.equal(await reason(listOpenAiModels(access(`${hang.url}/v1`, 150))), 'timeout')
  const slowBody = await server(t, (_req, res) => res.writeHead(200).write('{"data":['))
  t.equal(await reason(listOpenAiModels(access(`${slowBody.url}/v1`, 150))), 'timeout', 'headers in time, body never finished')
})

t.test('OpenAI-compatible ids are cut to each stage', async (t) => {
  const ids = [
    'gpt-4o-mini',
    'llama3.1:8b',
    'whisper-1',
    'Systran/faster-whisper-small',
    'gpt-4o-transcribe',
    'tts-1-hd',
    'text-embedding-3-large',
    'dall-e-3',
    'gpt-4o-realtime-preview',
  ]
  t.same(openAiModelsFor('llm', ids), ['gpt-4o-mini', 'llama3.1:8b'])
  t.same(openAiModelsFor('stt', ids), ['whisper-1', 'Systran/faster-whisper-small', 'gpt-4o-transcribe'])
  t.same(openAiModelsFor('tts', ids), ['tts-1-hd'])
})

t.test("espeak-ng's voice table is read as the engine reads it", async (t) => {
  const table = [
    'Pty Language       Age/Gender VoiceName          File                 Other Languages',
    ' 5  af              --/M      Afrikaans          gmw/af               ',
    ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
    ' 5  en-US           --/M      Duplicate          gmw/en-US-2          ',
    ' 5  --bad           --/M      Option             x/bad                ',
    'garbage',
  ].join('\n')
  t.same(parseEspeakVoices(table), [
    { id: 'af', name: 'Afrikaans', languages: ['af'] },
    { id: 'en-us', name: 'English (America)', languages: ['en-us'] },
  ])
})

t.test('the cache expires entries by the clock and holds at most its bound, oldest written first out', async (t) => {
  const clock = new ManualClock(0)
  const cache = new ListingCache<number>(clock, 2)
  cache.set('a', 1, 100)
  cache.set('b', 2, 100)
  cache.set('c', 3, 100)
  t.equal(cache.size, 2)
  t.equal(cache.get('a'), undefined, 'the oldest went')
  t.equal(cache.get('c'), 3)
  clock.advance(100)
  t.equal(cache.get('c'), undefined, 'expired at its TTL')
  cache.set('d', 4, 0)
  t.equal(cache.get('d'), undefined, 'a TTL of 0 keeps nothing')
  t.throws(() => new ListingCache(clock, 0), RangeError)
})
