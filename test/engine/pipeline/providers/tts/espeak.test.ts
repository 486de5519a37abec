import { spawnSync } from 'node:child_process'
import t from 'tap'
import { SAMPLE_RATE } from '../../../../../engine/audio/format.js'
import { rms } from '../../../../../engine/audio/pcm.js'
import { EspeakTts } from '../../../../../engine/pipeline/providers/tts/espeak.js'
import { parseVoiceList } from '../../../../../engine/pipeline/providers/tts/espeak-voices.js'
import { ProviderError } from '../../../../../engine/pipeline/providers/errors.js'
import { collect, live } from './helpers.js'

// In CI the binary is a declared dependency (scripts/system-packages.txt): missing means broken, not skipped.
const installed = spawnSync('espeak-ng', ['--version']).status === 0
if (!installed && process.env.CI === 'true') t.fail('espeak-ng is not installed, and CI requires it (apt-get install espeak-ng)')
const skip = installed ? false : 'espeak-ng is not installed'

/** espeak-ng processes that are children of this test process, with their state (Z = zombie). */
function children(): string[] {
  const out = spawnSync('ps', ['-o', 'pid=,stat=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout
  return out.split('\n').filter((l) => l.includes('espeak'))
}

t.test('parses the --voices table into the identifiers -v takes', async (t) => {
  const voices = parseVoiceList(
    'Pty Language       Age/Gender VoiceName          File                 Other Languages\n 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)\n 5  tr              --/M      Turkish            trk/tr\n',
  )
  t.same([...voices], ['en-us', 'tr'])
})

t.test('speaks English and Turkish as 16 kHz audio of a plausible length, first chunk early', { skip }, async (t) => {
  const tts = new EspeakTts()
  for (const [language, text] of [
    ['en', 'Hello, thank you for calling. How can I help you today?'],
    ['tr', 'Merhaba, aradığınız için teşekkürler. Size nasıl yardımcı olabilirim?'],
  ] as const) {
    await collect(tts.synthesize('warm up', { language, signal: live() }))
    const { all, chunks, firstMs, totalMs } = await collect(tts.synthesize(text, { language, signal: live() }))
    const seconds = all.length / SAMPLE_RATE
    t.ok(seconds > 2 && seconds < 8, `${language}: ${seconds.toFixed(2)} s of audio for ${text.length} characters`)
    t.ok(rms(all) > 0.01, `${language}: not silence (rms ${rms(all).toFixed(3)} of full scale)`)
    t.ok(chunks.length > 1, `${language}: streamed in ${chunks.length} chunks`)
    t.ok(firstMs < totalMs || chunks.length === 1, `${language}: first chunk after ${firstMs.toFixed(1)} ms, all after ${totalMs.toFixed(1)} ms`)
    t.ok(firstMs < 500, `${language}: first chunk within 500 ms (${firstMs.toFixed(1)} ms)`)
  }
})

t.test('for a phone line, the same speech at 8 kHz: half the samples, the same length in time', { skip }, async (t) => {
  const tts = new EspeakTts()
  const text = 'Thank you for calling. Please hold.'
  const wide = await collect(tts.synthesize(text, { language: 'en', signal: live() }))
  const line = await collect(tts.synthesize(text, { language: 'en', sampleRate: 8000, signal: live() }))
  t.ok(Math.abs(line.all.length * 2 - wide.all.length) <= 4, `${line.all.length} samples at 8 kHz, ${wide.all.length} at 16 kHz`)
  // Its 22.05 kHz output is filtered once, to the telephone band: the voice keeps its level.
  const level = rms(line.all) / rms(wide.all)
  t.ok(level > 0.9 && level < 1.05, `level at 8 kHz against 16 kHz: ${level.toFixed(3)}`)
})

t.test('an abort mid-stream kills the process and reaps it', { skip }, async (t) => {
  const tts = new EspeakTts()
  const ac = new AbortController()
  const long = 'This sentence keeps going so that the synthesis is still running when we abort it. '.repeat(20)
  const it = tts.synthesize(long, { language: 'en', signal: ac.signal })[Symbol.asyncIterator]()
  t.ok((await it.next()).value?.length, 'a first chunk arrived')
  t.equal(children().length, 1, 'espeak-ng is running')
  ac.abort(new Error('barge-in'))
  await t.rejects(
    async () => {
      for (;;) if ((await it.next()).done) break
    },
    { message: 'barge-in' },
    'the iterator rejects with the abort reason',
  )
  t.same(children(), [], 'no espeak-ng process (nor zombie) is left')
})

t.test("a consumer's early return kills the process too", { skip }, async (t) => {
  const tts = new EspeakTts()
  for await (const c of tts.synthesize('One sentence. Another sentence. '.repeat(30), { signal: live() })) {
    t.ok(c.length)
    break
  }
  t.same(children(), [], 'no espeak-ng process left after break')
})

t.test('refuses text over the limit, unknown voices and unknown languages', { skip }, async (t) => {
  const tts = new EspeakTts({ maxTextChars: 100 })
  await t.rejects(collect(tts.synthesize('x'.repeat(101), { signal: live() })), {
    name: 'ProviderError',
    category: 'tts',
    code: 'tts_failed',
    retryable: false,
  })
  await t.rejects(collect(tts.synthesize('hello', { voice: '--version', signal: live() })), { code: 'tts_failed', message: /no voice "--version"/ })
  await t.rejects(collect(tts.synthesize('hello', { voice: 'xx-nope', signal: live() })), { code: 'tts_failed' })
  await t.rejects(collect(tts.synthesize('hello', { language: 'tlh', signal: live() })), { code: 'tts_failed', message: /no voice for language/ })
  const ok = await collect(tts.synthesize('hello', { voice: 'en-gb', signal: live() }))
  t.ok(ok.all.length > 0, 'an installed explicit voice is used')
  t.same(children(), [])
})

t.test('text starting with dashes is spoken, not taken as an option', { skip }, async (t) => {
  const { all } = await collect(new EspeakTts().synthesize('--help -v xx', { signal: live() }))
  t.ok(all.length > SAMPLE_RATE / 4)
})

t.test('a missing binary is tts_unavailable and names the Debian package', async (t) => {
  const tts = new EspeakTts({ binary: '/nonexistent/espeak-ng' })
  const err = await collect(tts.synthesize('hello', { signal: live() })).catch((e: unknown) => e)
  t.ok(err instanceof ProviderError)
  t.match(err, { code: 'tts_unavailable', message: /apt-get install espeak-ng/ })
})

t.test('an aborted signal stops before spawning', { skip }, async (t) => {
  const ac = new AbortController()
  ac.abort(new Error('gone'))
  await t.rejects(collect(new EspeakTts().synthesize('hello', { signal: ac.signal })), { message: 'gone' })
  t.same(children(), [])
})
