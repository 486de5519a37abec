/**
 * A local stand-in for OpenAI's transcription endpoint (`POST /v1/audio/transcriptions`,
 * multipart: file, model, language, response_format …), so the `openai` SDK runs its real
 * upload path. It cannot recognize speech: each request is answered with the next scripted
 * transcript (empty when none is queued), after a configurable latency. It reads the uploaded
 * WAV, so the log shows how much audio each request carried.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import busboy from 'busboy'
import { parseWav } from '../../../audio/index.js'
import { errorBody, maskKey } from './openai-wire.js'
import { listening } from './http-helpers.js'

export interface ScriptedTranscript {
  text: string
  /** Request arrival → answer, overriding `latencyMs`. */
  latencyMs?: number
}

/** One failure, used by the next transcription request. */
export type TranscriptionFailure =
  | { kind: 'status'; status: number; message?: string }
  /** Reads the upload and never answers. */
  | { kind: 'hang' }

export interface TranscriptionRequest {
  /** performance.now() at arrival and when answered (0 while unanswered). */
  at: number
  answeredAt: number
  authorized: boolean
  model: string | undefined
  language: string | undefined
  responseFormat: string | undefined
  fileName: string | undefined
  fileBytes: number
  /** Duration of the uploaded WAV; null when it was not a PCM16 WAV. */
  audioMs: number | null
  status: number
  text: string | undefined
  injectedLatencyMs: number
  failure: string | null
  /** completed, or client_closed when the client hung up before the answer (an abort or timeout). */
  outcome: 'completed' | 'client_closed' | undefined
}

export interface TranscriptionStandInOptions {
  apiKey: string
  host?: string
  port?: number
  /** Delay before each answer (default 0). */
  latencyMs?: number
  models?: string[]
  /** What a request gets when nothing is scripted (`npm run stand-ins` rotates caller lines with it). Default: an empty transcript. */
  fallback?: () => ScriptedTranscript | string | undefined
}

export interface TranscriptionStandIn {
  /** Base URL to give the SDK, ending in /v1. */
  url: string
  requests: TranscriptionRequest[]
  /** Its request handler, for another stand-in to serve /v1/audio/transcriptions on its own port (openai-server `mount`). */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void
  script(...t: Array<ScriptedTranscript | string>): void
  fail(...f: TranscriptionFailure[]): void
  close(): Promise<void>
}

const FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt']
const MAX_FILE_BYTES = 25 * 1024 * 1024

export async function startTranscriptionStandIn(options: TranscriptionStandInOptions): Promise<TranscriptionStandIn> {
  const script: ScriptedTranscript[] = []
  const failures: TranscriptionFailure[] = []
  const requests: TranscriptionRequest[] = []
  const models = options.models ?? ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe']

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch(() => res.destroy())
  }
  const server = http.createServer(handler)

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'POST' || path !== '/v1/audio/transcriptions') {
      req.resume()
      return json(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error'))
    }
    const auth = req.headers.authorization
    const record: TranscriptionRequest = {
      at: performance.now(),
      answeredAt: 0,
      authorized: auth === `Bearer ${options.apiKey}`,
      model: undefined,
      language: undefined,
      responseFormat: undefined,
      fileName: undefined,
      fileBytes: 0,
      audioMs: null,
      status: 0,
      text: undefined,
      injectedLatencyMs: 0,
      failure: null,
      outcome: undefined,
    }
    requests.push(record)
    res.on('close', () => (record.outcome ??= res.writableFinished ? 'completed' : 'client_closed'))
    if (!record.authorized) {
      req.resume()
      const sent = auth?.startsWith('Bearer ') ? auth.slice(7) : ''
      return answer(
        record,
        res,
        401,
        errorBody(
          sent
            ? `Incorrect API key provided: ${maskKey(sent)}. You can find your API key at https://platform.openai.com/account/api-keys.`
            : "You didn't provide an API key.",
          'invalid_request_error',
          sent ? 'invalid_api_key' : null,
        ),
      )
    }
    const form = await readForm(req)
    if (!form) return answer(record, res, 400, errorBody('Could not parse multipart form', 'invalid_request_error'))
    record.model = form.fields.model
    record.language = form.fields.language
    record.responseFormat = form.fields.response_format
    record.fileName = form.fileName
    record.fileBytes = form.file?.length ?? 0
    if (!form.file) return answer(record, res, 400, errorBody("'file' is a required property", 'invalid_request_error', null, 'file'))
    if (!record.model) return answer(record, res, 400, errorBody("'model' is a required property", 'invalid_request_error', null, 'model'))
    if (!models.includes(record.model))
      return answer(record, res, 400, errorBody(`Invalid model ${record.model}.`, 'invalid_request_error', 'model_not_found', 'model'))
    if (form.file.length > MAX_FILE_BYTES)
      return answer(record, res, 413, errorBody('Maximum content size limit (26214400) exceeded.', 'invalid_request_error'))
    const format = record.responseFormat ?? 'json'
    if (!FORMATS.includes(format))
      return answer(record, res, 400, errorBody(`Invalid response_format ${format}.`, 'invalid_request_error', null, 'response_format'))
    try {
      const wav = parseWav(form.file)
      record.audioMs = ((wav.samples.length / wav.channels) * 1000) / wav.sampleRate
    } catch {
      return answer(
        record,
        res,
        400,
        errorBody('Invalid file format. Supported formats: [flac m4a mp3 mp4 mpeg mpga oga ogg wav webm]', 'invalid_request_error'),
      )
    }
    if (record.audioMs < 100)
      return answer(
        record,
        res,
        400,
        errorBody('Audio file is too short. Minimum audio length is 0.1 seconds.', 'invalid_request_error', 'audio_too_short', 'file'),
      )
    const failure = failures.shift()
    record.failure = failure ? JSON.stringify(failure) : null
    if (failure?.kind === 'hang') return
    if (failure?.kind === 'status')
      return answer(
        record,
        res,
        failure.status,
        errorBody(failure.message ?? `Injected failure ${failure.status}`, failure.status >= 500 ? 'server_error' : 'invalid_request_error'),
      )
    const next = script.shift() ?? options.fallback?.()
    const scripted = typeof next === 'string' ? { text: next } : next
    record.text = scripted?.text ?? ''
    record.injectedLatencyMs = scripted?.latencyMs ?? options.latencyMs ?? 0
    if (record.injectedLatencyMs > 0) await new Promise((r) => setTimeout(r, record.injectedLatencyMs))
    if (format === 'json') return answer(record, res, 200, { text: record.text, usage: { type: 'duration', seconds: Math.ceil(record.audioMs / 1000) } })
    if (format === 'verbose_json')
      return answer(record, res, 200, {
        task: 'transcribe',
        language: record.language ?? 'english',
        duration: record.audioMs / 1000,
        text: record.text,
        segments: [],
      })
    record.status = 200
    record.answeredAt = performance.now()
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(record.text)
  }

  function answer(record: TranscriptionRequest, res: http.ServerResponse, status: number, body: unknown): void {
    record.status = status
    record.answeredAt = performance.now()
    json(res, status, body)
  }

  await listening(server, options.port ?? 0, options.host ?? '127.0.0.1')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    requests,
    handler,
    script: (...t) => script.push(...t.map((x) => (typeof x === 'string' ? { text: x } : x))),
    fail: (...f) => failures.push(...f),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function readForm(req: http.IncomingMessage): Promise<{ fields: Record<string, string>; file: Buffer | undefined; fileName: string | undefined } | null> {
  return new Promise((resolve) => {
    let bb: busboy.Busboy
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_FILE_BYTES + 1 } })
    } catch {
      req.resume()
      return resolve(null)
    }
    const fields: Record<string, string> = {}
    let file: Buffer | undefined
    let fileName: string | undefined
    bb.on('field', (name, value) => (fields[name] = value))
    bb.on('file', (name, stream, info) => {
      const parts: Buffer[] = []
      stream.on('data', (c: Buffer) => parts.push(c))
      stream.on('end', () => {
        if (name === 'file') {
          file = Buffer.concat(parts)
          fileName = info.filename
        }
      })
    })
    bb.on('close', () => resolve({ fields, file, fileName }))
    bb.on('error', () => resolve(null))
    req.pipe(bb)
  })
}
