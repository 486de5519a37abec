import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { startOpenAiStandIn, startSpeechStandIn, DEFAULT_SPEECH_KEYS } from '../../../../engine/pipeline/providers/stand-ins/index.js'
import { OpenAiLlm } from '../../../../engine/pipeline/providers/llm/index.js'
import { OpenAiSpeechTts } from '../../../../engine/pipeline/providers/tts/openai-speech.js'
import { KEY, never, request, settle } from './llm/fixture.js'
import { collect, live } from './tts/helpers.js'

// Provider requests never follow a redirect: the keyed request stays where it was configured to go
// (and undici skips cloning the body, which redirect-following requests pay for on every call).

/** Answers everything with a 307 to `target`, counting the requests. */
async function redirecting(t: Test, target: string): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = http.createServer((req, res) => {
    hits++
    req.resume()
    res.writeHead(307, { location: `${target}${req.url}` }).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits: () => hits }
}

t.test('the LLM does not follow a redirect to a working server', async (t) => {
  const real = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => real.close())
  const hop = await redirecting(t, real.url.replace(/\/v1$/, ''))
  const llm = new OpenAiLlm({ apiKey: KEY, baseURL: hop.url, maxRetries: 0 })
  const { error } = await settle(llm.stream(request(), never()))
  t.ok(error, 'the turn fails')
  t.equal(hop.hits(), 1)
  t.equal(real.requests.length, 0, 'the redirect target never saw the request (nor the key)')
})

t.test('the speech provider does not follow a redirect either', async (t) => {
  const real = await startSpeechStandIn({})
  t.teardown(() => real.close())
  const hop = await redirecting(t, real.openaiUrl.replace(/\/v1$/, ''))
  const tts = new OpenAiSpeechTts({ apiKey: DEFAULT_SPEECH_KEYS.openai, baseURL: hop.url })
  const error = await collect(tts.synthesize('Hello there.', { signal: live() })).then(
    () => null,
    (e: unknown) => e,
  )
  t.match(error, { name: 'ProviderError', category: 'tts' })
  t.equal(hop.hits(), 1)
  t.equal(real.requests.length, 0)
})
