/**
 * A local stand-in for Deepgram live transcription (`wss://api.deepgram.com/v1/listen`), speaking
 * its wire protocol so `@deepgram/sdk` runs its real code paths. It cannot recognize speech: the
 * test or bench scripts the transcript of each coming utterance, and the stand-in finds the
 * utterances in the audio it receives by energy, so the timing is real: interim Results (growing
 * prefixes of the scripted text) while the utterance lasts, and its final once `endpointing` ms of
 * silence have arrived or a Finalize came, never sooner than the injected final latency after the
 * speech ended. Every exchange is logged with what the stand-in injected. Its messages are
 * deepgram-wire.ts; how it finds speech and places words, deepgram-speech.ts; its shapes, deepgram-types.ts.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import { WebSocketServer, type WebSocket, type RawData } from 'ws'
import { pcmFromBytes, rms } from '../../../audio/index.js'
import { BLOCK, DEFAULT_SPEECH_RMS, heardWords } from './deepgram-speech.js'
import type {
  DeepgramFailure,
  DeepgramOutcome,
  DeepgramSession,
  DeepgramStandIn,
  DeepgramStandInOptions,
  ScriptedUtterance,
  UtteranceLog,
} from './deepgram-types.js'
import { controlType, credentials, metadataMessage, resultsMessage, upgradeRefusal, type ResultsFlags } from './deepgram-wire.js'
import { latencySampler } from './latency.js'
import { listening } from './http-helpers.js'
import { DEFAULT_DEEPGRAM_MODELS, modelListing } from './model-listing.js'

export async function startDeepgramStandIn(options: DeepgramStandInOptions): Promise<DeepgramStandIn> {
  const script: ScriptedUtterance[] = []
  const failures: DeepgramFailure[] = []
  const sessions: DeepgramSession[] = []
  const latency = latencySampler(options.finalLatencyMs ?? { p50: 250, p95: 300 }, options.seed ?? 1)
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => (p.has('token') ? 'token' : false) })
  const listing = modelListing((status, message) => ({ err_code: status === 401 ? 'INVALID_AUTH' : 'INJECTED', err_msg: message, request_id: randomUUID() }))
  const server = http.createServer((req, res) => {
    const mounted = options.mount?.find((m) => req.url?.startsWith(m.prefix))
    if (mounted) return mounted.handler(req, res)
    if (req.method === 'GET' && req.url?.split('?')[0] === '/v1/models')
      return listing.answer(req, res, credentials(req).key === options.apiKey, () => options.models ?? DEFAULT_DEEPGRAM_MODELS)
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ err_code: 'NOT_FOUND', err_msg: 'Not found.' }))
  })
  const sockets = new Set<WebSocket>()

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://stand-in')
    const { auth, key } = credentials(req)
    const failure = url.pathname === '/v1/listen' ? failures.shift() : undefined
    let settle!: (o: DeepgramOutcome) => void
    const session: DeepgramSession = {
      at: performance.now(),
      query: url.searchParams,
      auth,
      authorized: key === options.apiKey,
      failure: failure ? JSON.stringify(failure) : null,
      audioBytes: 0,
      keepAlives: 0,
      finalizes: 0,
      closeStreams: 0,
      utterances: [],
      sent: [],
      outcome: undefined,
      closeCode: undefined,
      ended: new Promise((r) => (settle = r)),
    }
    const refuse = (status: number, err_code: string, err_msg: string) => {
      session.outcome = 'rejected'
      session.closeCode = status
      settle('rejected')
      socket.end(upgradeRefusal(status, err_code, err_msg))
    }
    if (url.pathname !== '/v1/listen') return refuse(404, 'NOT_FOUND', 'Not found.')
    sessions.push(session)
    if (!session.authorized) return refuse(401, 'INVALID_AUTH', 'Invalid credentials.')
    if (failure?.kind === 'reject') return refuse(failure.status, failure.status === 401 ? 'INVALID_AUTH' : 'INJECTED', 'Injected failure.')
    const q = url.searchParams
    const encoding = q.get('encoding')
    if (encoding !== null && encoding !== 'linear16') return refuse(400, 'INVALID_QUERY_PARAMETER', 'The stand-in decodes only linear16.')
    if (encoding !== null && q.get('sample_rate') === null) return refuse(400, 'INVALID_QUERY_PARAMETER', 'sample_rate is required with encoding.')
    if ((q.get('channels') ?? '1') !== '1') return refuse(400, 'INVALID_QUERY_PARAMETER', 'The stand-in accepts one channel.')
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      ws.on('close', () => sockets.delete(ws))
      runSession(ws, session, settle, failure, q)
    })
  })

  function runSession(ws: WebSocket, s: DeepgramSession, settle: (o: DeepgramOutcome) => void, failure: DeepgramFailure | undefined, q: URLSearchParams): void {
    const requestId = randomUUID()
    const sampleRate = Number(q.get('sample_rate') ?? 16_000)
    const ep = q.get('endpointing')
    const endpointingMs = ep === 'false' ? Infinity : ep === null ? 10 : Number(ep)
    const pauseMs = Math.max(endpointingMs, options.minPauseMs ?? 200)
    const interimEveryMs = options.interimEveryMs ?? 250
    const interims = q.get('interim_results') === 'true'
    const utteranceEndMs = q.get('utterance_end_ms')
    const threshold = options.speechThreshold ?? DEFAULT_SPEECH_RMS
    const hang = failure?.kind === 'hang'
    const closeAt = failure?.kind === 'close' ? failure : undefined
    let serverClosed = false
    let samples = 0 // audio received, in samples (at sampleRate)
    let carry = new Int16Array(0)
    let odd: Buffer | null = null
    type Current = {
      scripted: ScriptedUtterance | undefined
      startMs: number
      lastSpeechMs: number
      lastSpeechAt: number
      lastInterimMs: number
      interims: number
      completeAt: number | null
      /** The scripted text's words, and their audio span from startMs (timed interims) or undefined. */
      words: string[]
      speechMs: number | undefined
    }
    /** The rest of an utterance a Finalize cut short: where its speech ends, in audio ms. */
    const rests = new WeakMap<ScriptedUtterance, number>()
    const open = (scripted: ScriptedUtterance | undefined, now: number): Current => {
      const endsAt = scripted && rests.get(scripted)
      const speechMs = endsAt !== undefined ? Math.max(10, endsAt - (now - 10)) : scripted?.speechMs
      const words = (scripted?.text ?? '').split(/\s+/).filter(Boolean)
      return {
        scripted,
        startMs: now - 10,
        lastSpeechMs: now,
        lastSpeechAt: performance.now(),
        lastInterimMs: now - 10,
        interims: 0,
        completeAt: null,
        words,
        speechMs,
      }
    }
    const next = (): ScriptedUtterance | undefined => {
      const u = script.shift() ?? options.fallback?.(s)
      return typeof u === 'string' ? { text: u } : u
    }
    let cur: Current | null = null
    let due: { utt: Current; endMs: number; timer: NodeJS.Timeout; latencyMs: number; sendAt: number; endedBy: 'endpointing' | 'finalize' } | null = null
    const audioMs = () => (samples * 1000) / sampleRate
    let idle = setTimeout(onIdle, options.idleTimeoutMs ?? 10_000)

    const send = (m: Record<string, unknown>) => {
      if (hang || ws.readyState !== ws.OPEN) return
      s.sent.push(m)
      ws.send(JSON.stringify(m))
    }
    const results = (u: Current, endMs: number, text: string, flags: ResultsFlags) => send(resultsMessage(requestId, u.startMs, endMs, text, flags))
    const sendFinal = (u: Current, endMs: number, endedBy: UtteranceLog['endedBy'], latencyMs: number) => {
      const text = u.scripted?.text ?? ''
      results(u, endMs, text, { is_final: true, speech_final: endedBy !== 'finalize', ...(endedBy === 'finalize' ? { from_finalize: true } : {}) })
      const sentAt = performance.now()
      s.utterances.push({
        text,
        unscripted: !u.scripted,
        speechStartMs: u.startMs,
        speechEndMs: u.lastSpeechMs,
        speechEndAt: u.lastSpeechAt,
        finalSentAt: sentAt,
        completeAt: u.completeAt ?? sentAt,
        injectedLatencyMs: Math.max(0, Math.min(latencyMs, Math.round(sentAt - u.lastSpeechAt))),
        endedBy,
      })
      if (endedBy === 'endpointing' && utteranceEndMs !== null) send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: u.lastSpeechMs / 1000 })
    }
    /** The utterance is over: its final goes out `latency` after its speech ended, not before now. */
    const schedule = (u: Current, endedBy: 'endpointing' | 'finalize') => {
      // One final pending at a time, in order: an earlier one still waiting goes out first.
      if (due) sendDue()
      const latencyMs = u.scripted?.latencyMs ?? latency()
      const sendAt = u.lastSpeechAt + latencyMs
      due = { utt: u, endMs: u.lastSpeechMs, latencyMs, sendAt, endedBy, timer: setTimeout(onDue, Math.max(0, sendAt - performance.now())) }
    }
    // Node's timers count whole milliseconds on a coarser clock and can fire up to ~1 ms before
    // performance.now() says the delay is over: wait out the rest so no final goes out early.
    const onDue = () => {
      if (!due) return
      const left = due.sendAt - performance.now()
      if (left > 0) due.timer = setTimeout(onDue, Math.ceil(left))
      else sendDue()
    }
    const sendDue = () => {
      if (!due) return
      const d = due
      due = null
      clearTimeout(d.timer)
      sendFinal(d.utt, d.endMs, d.endedBy, d.latencyMs)
    }
    /** CloseStream: what is pending (a scheduled final, then the utterance being spoken) goes out now. */
    const flushAll = () => {
      sendDue()
      if (cur) sendFinal(cur, cur.lastSpeechMs, 'close_stream', 0)
      cur = null
    }
    /**
     * A Finalize inside a timed utterance (a pause within it): the final holds the words heard so
     * far, and the rest is what the next speech says, as a real recognizer would split it.
     */
    const splitOff = (u: Current) => {
      if (!u.scripted || u.speechMs === undefined) return
      const heard = heardWords(u, audioMs())
      if (heard === 0 || heard >= u.words.length) return
      const rest: ScriptedUtterance = { text: u.words.slice(heard).join(' '), ...(u.scripted.latencyMs !== undefined && { latencyMs: u.scripted.latencyMs }) }
      rests.set(rest, u.startMs + u.speechMs)
      script.unshift(rest)
      u.words = u.words.slice(0, heard)
      u.scripted = { ...u.scripted, text: u.words.join(' ') }
    }

    function onAudio(pcm: Int16Array): void {
      const all = new Int16Array(carry.length + pcm.length)
      all.set(carry)
      all.set(pcm, carry.length)
      let at = 0
      for (; at + BLOCK <= all.length; at += BLOCK) {
        const block = all.subarray(at, at + BLOCK)
        samples += BLOCK
        const now = audioMs()
        const loud = rms(block) >= threshold
        if (loud) {
          if (!cur) cur = open(next(), now)
          cur.lastSpeechMs = now
          cur.lastSpeechAt = performance.now()
        } else if (cur && now - cur.lastSpeechMs >= pauseMs) {
          schedule(cur, 'endpointing')
          cur = null
        }
        // Interims follow the audio, trailing silence included, once words are placed in time;
        // like Deepgram's, they come on the cadence whether or not the words changed.
        if (cur && interims && (loud || cur.speechMs !== undefined) && now - cur.lastInterimMs >= interimEveryMs) {
          cur.lastInterimMs = now
          cur.interims++
          const heard = heardWords(cur, now)
          if (heard > 0) {
            results(cur, now, cur.words.slice(0, heard).join(' '), { is_final: false, speech_final: false })
            if (heard === cur.words.length) cur.completeAt ??= performance.now()
          }
        }
      }
      carry = all.slice(at)
      if (closeAt && !serverClosed && audioMs() >= (closeAt.afterAudioMs ?? 0)) {
        serverClosed = true
        ws.close(closeAt.code, closeAt.reason ?? 'injected failure')
      }
    }

    function onIdle(): void {
      if (hang) return
      serverClosed = true
      ws.close(1011, 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001')
    }

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (serverClosed) return
      clearTimeout(idle)
      idle = setTimeout(onIdle, options.idleTimeoutMs ?? 10_000)
      let buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
      if (isBinary) {
        s.audioBytes += buf.length
        if (odd) buf = Buffer.concat([odd, buf])
        odd = buf.length % 2 ? buf.subarray(buf.length - 1) : null
        return onAudio(pcmFromBytes(odd ? buf.subarray(0, buf.length - 1) : buf))
      }
      const type = controlType(buf)
      if (type === 'KeepAlive') s.keepAlives++
      else if (type === 'Finalize') {
        s.finalizes++
        // The utterance being spoken ends here; its final still takes the injected latency. One
        // already endpointed answers with its own final. With nothing pending, Deepgram answers a
        // Finalize with an empty from_finalize result.
        if (cur) {
          splitOff(cur)
          schedule(cur, 'finalize')
          cur = null
        } else if (!due)
          results({ ...open(undefined, audioMs()), startMs: audioMs() }, audioMs(), '', { is_final: true, speech_final: false, from_finalize: true })
      } else if (type === 'CloseStream') {
        s.closeStreams++
        if (hang) return
        flushAll()
        send(metadataMessage(requestId, audioMs()))
        serverClosed = true
        ws.close(1000)
      }
    })
    ws.on('close', (code) => {
      clearTimeout(idle)
      if (due) clearTimeout(due.timer)
      s.closeCode = code
      s.outcome = serverClosed ? (closeAt || code !== 1000 ? 'server_closed' : 'completed') : 'client_closed'
      settle(s.outcome)
    })
    ws.on('error', () => {})
  }

  await listening(server, options.port ?? 0, options.host ?? '127.0.0.1')
  const { port } = server.address() as AddressInfo
  return {
    url: `ws://${options.host ?? '127.0.0.1'}:${port}`,
    sessions,
    script: (...u) => script.push(...u.map((x) => (typeof x === 'string' ? { text: x } : x))),
    fail: (...f) => failures.push(...f),
    modelListings: listing.requests,
    failModelListing: listing.fail,
    close: async () => {
      for (const ws of sockets) ws.terminate()
      wss.close()
      server.closeAllConnections() // a hung listing request, say
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
