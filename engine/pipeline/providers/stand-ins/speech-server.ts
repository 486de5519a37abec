/**
 * A local stand-in for two speech APIs on one port: OpenAI's `POST /v1/audio/speech` (Bearer key,
 * JSON {model, input, voice, response_format}; `pcm` = raw 24 kHz PCM16 mono, `wav` = the same
 * behind a streamed header whose sizes are 0xFFFFFFFF) and Deepgram's `POST /v1/speak?model=…
 * &encoding=linear16&sample_rate=…&container=none|wav` (`Token` key, JSON {text}). Real wire
 * protocols, so the `openai` and `@deepgram/sdk` clients run their real code paths.
 *
 * The audio is a tone whose length follows the text (msPerChar each, at least 200 ms) and whose
 * pitch follows the voice, so tests can check the length that arrives. It is paced (first-byte
 * latency, then chunks at an interval) in chunks of an odd byte count by default, so clients meet
 * samples split across reads. Failures are injected per request, and each request is logged.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { errorBody, maskKey, newId } from './openai-wire.js'
import { closedSignal, readBody, sleep } from './http-helpers.js'
import { latencySampler, type LatencySpec } from './latency.js'

export type SpeechFailure =
  /** An error status with the protocol's error body (OpenAI's envelope or Deepgram's err_code/err_msg). */
  | { kind: 'status'; status: number; message?: string }
  /** Accepts the request and never answers, not even headers. */
  | { kind: 'hang' }
  /** Sends headers and `afterChunks` chunks, then goes silent with the connection open. */
  | { kind: 'stall'; afterChunks: number }
  /** Sends `afterChunks` chunks, then destroys the connection (`until` holds the reset, see openai-server.ts). */
  | { kind: 'reset'; afterChunks: number; until?: Promise<unknown> }

export type SpeechOutcome = 'completed' | 'client_closed' | 'reset'

export interface SpeechRequest {
  /** performance.now() once the body was read. */
  at: number
  /** performance.now() when the request's head arrived (before its body was read). */
  receivedAt: number
  /** performance.now() when the first audio byte was written; null when none was. */
  firstByteSentAt: number | null
  protocol: 'openai' | 'deepgram'
  authorization: string | undefined
  authorized: boolean
  text: string
  /** OpenAI's voice, or Deepgram's model (which is its voice). */
  voice: string
  model: string
  format: 'pcm' | 'wav'
  sampleRateHz: number
  query: Record<string, string>
  body: Record<string, unknown>
  status: number
  /** `firstByteMs` is this request's own draw from `firstByteLatencyMs`. */
  injected: { firstByteMs: number; chunkIntervalMs: number; chunks: number; bytes: number; failure: string | null }
  outcome: SpeechOutcome | undefined
  ended: Promise<SpeechOutcome>
}

export interface SpeechPace {
  /** Before the first byte; drawn once per request. A new one in `pace()` restarts its sampler. */
  firstByteLatencyMs?: LatencySpec
  chunkIntervalMs?: number
  /** Bytes per write; odd by default so a sample straddles two writes. */
  chunkBytes?: number
}

export interface SpeechStandInOptions extends SpeechPace {
  openaiKey?: string
  deepgramKey?: string
  /** Tone length per character of text. */
  msPerChar?: number
  host?: string
  port?: number
}

export interface SpeechStandIn {
  /** http://127.0.0.1:<port>: Deepgram's base URL (the SDK adds /v1/speak). */
  origin: string
  /** Its request handler, for another stand-in to serve these paths on its own port (openai-server `mount`). */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void
  /** `${origin}/v1`: OpenAI's base URL. */
  openaiUrl: string
  requests: SpeechRequest[]
  fail(...failures: SpeechFailure[]): void
  pace(p: SpeechPace): void
  close(): Promise<void>
}

export const DEFAULT_SPEECH_KEYS = { openai: 'sk-speech-standin-key', deepgram: 'dg-speech-standin-key' } as const
const OPENAI_RATE_HZ = 24_000
const DEEPGRAM_RATES = [8000, 16000, 24000, 32000, 48000]

/** The tone's length for a text, so callers can predict what they will receive. */
export function toneMs(text: string, msPerChar = 50): number {
  return Math.max(200, text.length * msPerChar)
}

export async function startSpeechStandIn(options: SpeechStandInOptions = {}): Promise<SpeechStandIn> {
  const keys = { openai: options.openaiKey ?? DEFAULT_SPEECH_KEYS.openai, deepgram: options.deepgramKey ?? DEFAULT_SPEECH_KEYS.deepgram }
  const msPerChar = options.msPerChar ?? 50
  const pace = { chunkIntervalMs: options.chunkIntervalMs ?? 0, chunkBytes: options.chunkBytes ?? 4801 }
  let nextFirstByteMs = latencySampler(options.firstByteLatencyMs ?? 0)
  const failures: SpeechFailure[] = []
  const requests: SpeechRequest[] = []

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch(() => res.destroy())
  }
  const server = http.createServer(handler)

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = performance.now()
    const url = new URL(req.url ?? '/', 'http://stand-in')
    const raw = await readBody(req)
    let body: Record<string, unknown> = {}
    try {
      const v: unknown = JSON.parse(raw)
      if (v && typeof v === 'object' && !Array.isArray(v)) body = v as Record<string, unknown>
    } catch {
      // Left empty; the checks below refuse it.
    }
    if (req.method === 'POST' && url.pathname === '/v1/audio/speech') return openai(req, res, body, receivedAt)
    if (req.method === 'POST' && url.pathname === '/v1/speak') return deepgram(req, res, body, Object.fromEntries(url.searchParams), receivedAt)
    json(res, 404, errorBody(`Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error'))
  }

  async function openai(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>, receivedAt: number): Promise<void> {
    const auth = req.headers.authorization
    const format = body.response_format ?? 'mp3'
    const r = log(res, receivedAt, 'openai', auth, auth === `Bearer ${keys.openai}`, {
      text: str(body.input),
      voice: str(body.voice),
      model: str(body.model),
      format: format === 'wav' ? 'wav' : 'pcm',
      sampleRateHz: OPENAI_RATE_HZ,
      query: {},
      body,
    })
    const refuse = (status: number, message: string, param: string | null = null, code: string | null = null) =>
      json(res, status, errorBody(message, 'invalid_request_error', code, param), r)
    if (!r.authorized) {
      const sent = auth?.startsWith('Bearer ') ? auth.slice(7) : ''
      return refuse(401, sent ? `Incorrect API key provided: ${maskKey(sent)}.` : "You didn't provide an API key.", null, sent ? 'invalid_api_key' : null)
    }
    if (!r.model) return refuse(400, "Missing required parameter: 'model'.", 'model')
    if (!r.voice) return refuse(400, "Missing required parameter: 'voice'.", 'voice')
    if (typeof body.input !== 'string' || !r.text) return refuse(400, "Missing required parameter: 'input'.", 'input')
    if (r.text.length > 4096) return refuse(400, `'input' is too long: ${r.text.length} characters, the maximum is 4096.`, 'input', 'string_above_max_length')
    // mp3, opus, aac and flac are real formats; the stand-in only encodes the two that stream raw.
    if (format !== 'pcm' && format !== 'wav') return refuse(400, `The stand-in only produces pcm and wav, not '${String(format)}'.`, 'response_format')
    const pcm = tone(r.text, r.voice, OPENAI_RATE_HZ, msPerChar)
    const audio = r.format === 'wav' ? Buffer.concat([streamingWavHeader(OPENAI_RATE_HZ), pcm]) : pcm
    await stream(res, r, audio, r.format === 'wav' ? 'audio/wav' : 'audio/pcm', (status, message) =>
      errorBody(message ?? `Upstream failure ${status}`, status >= 500 ? 'server_error' : 'requests'),
    )
  }

  async function deepgram(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: Record<string, unknown>,
    query: Record<string, string>,
    receivedAt: number,
  ): Promise<void> {
    const auth = req.headers.authorization
    const container = query.container ?? 'wav'
    const r = log(res, receivedAt, 'deepgram', auth, auth === `Token ${keys.deepgram}`, {
      text: str(body.text),
      voice: query.model ?? 'aura-asteria-en',
      model: query.model ?? 'aura-asteria-en',
      format: container === 'none' ? 'pcm' : 'wav',
      sampleRateHz: Number(query.sample_rate ?? 24000),
      query,
      body,
    })
    const refuse = (status: number, code: string, message: string) => json(res, status, dgError(code, message), r)
    if (!r.authorized) return refuse(401, 'INVALID_AUTH', 'Invalid credentials.')
    if (typeof body.text !== 'string' || !r.text) return refuse(400, 'Bad Request', 'The request body must be JSON with a non-empty "text" field.')
    if (r.text.length > 2000) return refuse(413, 'Payload Too Large', 'Text input exceeds the maximum of 2000 characters.')
    if (!r.model.startsWith('aura-')) return refuse(400, 'INVALID_QUERY_PARAMETER', `No such model/voice: ${r.model}`)
    if ((query.encoding ?? 'mp3') !== 'linear16') return refuse(400, 'UNSUPPORTED_ENCODING', 'The stand-in only produces linear16.')
    if (!DEEPGRAM_RATES.includes(r.sampleRateHz)) return refuse(400, 'INVALID_QUERY_PARAMETER', `Unsupported sample_rate ${query.sample_rate}.`)
    if (container !== 'none' && container !== 'wav') return refuse(400, 'INVALID_QUERY_PARAMETER', `Unsupported container ${container}.`)
    const pcm = tone(r.text, r.voice, r.sampleRateHz, msPerChar)
    const audio = r.format === 'wav' ? Buffer.concat([streamingWavHeader(r.sampleRateHz), pcm]) : pcm
    await stream(res, r, audio, r.format === 'wav' ? 'audio/wav' : 'audio/l16', (status, message) =>
      dgError(status === 429 ? 'TOO_MANY_REQUESTS' : 'INTERNAL_SERVER_ERROR', message ?? `Upstream failure ${status}`),
    )
  }

  /** Injected failure first, then the audio in paced chunks; the log gets every delay it added. */
  async function stream(
    res: http.ServerResponse,
    r: SpeechRequest,
    audio: Buffer,
    type: string,
    failBody: (status: number, message?: string) => unknown,
  ): Promise<void> {
    const failure = failures.shift()
    r.injected.failure = failure ? describe(failure) : null
    if (failure?.kind === 'status') return json(res, failure.status, failBody(failure.status, failure.message), r)
    if (failure?.kind === 'hang') return
    Object.assign(r.injected, { firstByteMs: nextFirstByteMs(), chunkIntervalMs: pace.chunkIntervalMs })
    const closed = closedSignal(res)
    await sleep(r.injected.firstByteMs, closed)
    if (closed.aborted) return
    r.status = 200
    res.writeHead(200, { 'content-type': type, 'dg-request-id': newId('req'), 'x-request-id': newId('req') })
    for (let at = 0, i = 0; at < audio.length; at += pace.chunkBytes, i++) {
      if ((failure?.kind === 'stall' || failure?.kind === 'reset') && i === failure.afterChunks) {
        if (failure.kind === 'stall') return res.flushHeaders()
        await failure.until
        r.outcome ??= 'reset'
        return void res.socket?.destroy()
      }
      if (i > 0) await sleep(pace.chunkIntervalMs, closed)
      if (closed.aborted) return
      const piece = audio.subarray(at, at + pace.chunkBytes)
      res.write(piece)
      if (i === 0) r.firstByteSentAt = performance.now()
      r.injected.chunks++
      r.injected.bytes += piece.length
    }
    res.end()
  }

  function log(
    res: http.ServerResponse,
    receivedAt: number,
    protocol: SpeechRequest['protocol'],
    authorization: string | undefined,
    authorized: boolean,
    fields: Pick<SpeechRequest, 'text' | 'voice' | 'model' | 'format' | 'sampleRateHz' | 'query' | 'body'>,
  ): SpeechRequest {
    let settle!: (o: SpeechOutcome) => void
    const r: SpeechRequest = {
      at: performance.now(),
      receivedAt,
      firstByteSentAt: null,
      protocol,
      authorization,
      authorized,
      ...fields,
      status: 0,
      injected: { firstByteMs: 0, chunkIntervalMs: 0, chunks: 0, bytes: 0, failure: null },
      outcome: undefined,
      ended: new Promise((resolve) => (settle = resolve)),
    }
    res.on('close', () => {
      r.outcome ??= res.writableFinished ? 'completed' : 'client_closed'
      settle(r.outcome)
    })
    requests.push(r)
    return r
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`
  return {
    origin,
    handler,
    openaiUrl: `${origin}/v1`,
    requests,
    fail: (...f) => void failures.push(...f),
    pace: ({ firstByteLatencyMs, ...rest }) => {
      if (firstByteLatencyMs !== undefined) nextFirstByteMs = latencySampler(firstByteLatencyMs)
      Object.assign(pace, Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)))
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Tones already made: a capacity run asks for the same lines many times a second, and making them
 * costs the bench's own core (which also drives the callers) more than serving them. Never mutated. */
const tones = new Map<string, Buffer>()
const MAX_TONES = 256

/** A sine whose pitch depends on the voice and whose length on the text: deterministic, not canned. */
function tone(text: string, voice: string, rateHz: number, msPerChar: number): Buffer {
  const key = `${rateHz}|${msPerChar}|${voice}|${text}`
  let pcm = tones.get(key)
  if (!pcm) {
    pcm = makeTone(text, voice, rateHz, msPerChar)
    if (tones.size >= MAX_TONES) tones.delete(tones.keys().next().value!)
    tones.set(key, pcm)
  }
  return pcm
}

function makeTone(text: string, voice: string, rateHz: number, msPerChar: number): Buffer {
  const samples = Math.round((toneMs(text, msPerChar) * rateHz) / 1000)
  let h = 0
  for (const c of voice) h = (h * 31 + c.charCodeAt(0)) >>> 0
  const hz = 220 + (h % 8) * 55
  const out = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rateHz)), i * 2)
  return out
}

/** What streaming servers send before they know the length: RIFF and data sizes of 0xFFFFFFFF. */
function streamingWavHeader(rateHz: number): Buffer {
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'latin1')
  h.writeUInt32LE(0xffffffff, 4)
  h.write('WAVEfmt ', 8, 'latin1')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(1, 22)
  h.writeUInt32LE(rateHz, 24)
  h.writeUInt32LE(rateHz * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36, 'latin1')
  h.writeUInt32LE(0xffffffff, 40)
  return h
}

function dgError(code: string, message: string) {
  return { err_code: code, err_msg: message, request_id: newId('dg') }
}

function describe(f: SpeechFailure): string {
  return f.kind === 'status' ? `status ${f.status}` : f.kind === 'hang' ? 'hang' : `${f.kind} after ${f.afterChunks} chunks`
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

function json(res: http.ServerResponse, status: number, body: unknown, r?: SpeechRequest): void {
  if (r) r.status = status
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': newId('req') })
  res.end(JSON.stringify(body))
}
