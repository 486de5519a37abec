/**
 * The stand-ins `npm run stand-ins` runs, on two loopback ports because an organization holds one
 * credential per provider, and each credential has one base URL: the OpenAI port answers chat,
 * embeddings, speech and transcriptions; the Deepgram port live transcription and Aura speech.
 * The speech and transcription stand-ins are served through those ports (their own servers,
 * on free ports of their own, are not advertised).
 */
import {
  startDeepgramStandIn,
  startOpenAiStandIn,
  startSpeechStandIn,
  startTranscriptionStandIn,
  type DeepgramSession,
} from '../../engine/pipeline/providers/stand-ins/index.js'
import type { Dialogue } from './dialogue.js'

export const HOST = '127.0.0.1'

/** What the stand-ins did, for the console: each line they "heard" and each reply. */
export type StandInEvent = { kind: 'heard'; provider: 'deepgram' | 'openai'; line: string } | { kind: 'replied'; userText: string; reply: string | null }

export interface RunningStandIns {
  /** http://127.0.0.1:<port>/v1 */
  openaiUrl: string
  /** http://127.0.0.1:<port>: the credential's base_url (the engine opens ws:// to the same host for live transcription) */
  deepgramUrl: string
  close(): Promise<void>
}

export class PortTakenError extends Error {
  constructor(
    readonly which: 'openai' | 'deepgram',
    readonly port: number,
  ) {
    super(`port ${port} (the ${which} stand-in) is already in use`)
  }
}

export interface StandInsConfig {
  openaiPort: number
  deepgramPort: number
  openaiKey: string
  deepgramKey: string
  dialogue: Dialogue
  onEvent?: (e: StandInEvent) => void
}

/** Starts them all, or none: a taken port closes what had started and throws PortTakenError. */
export async function startStandIns(c: StandInsConfig): Promise<RunningStandIns> {
  const started: Array<{ close(): Promise<void> }> = []
  const closeAll = () => Promise.all(started.map((s) => s.close())).then(() => undefined)
  const portTaken = (which: 'openai' | 'deepgram', port: number) => (err: unknown) => {
    throw (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? new PortTakenError(which, port) : err
  }
  try {
    const speech = await startSpeechStandIn({ host: HOST, openaiKey: c.openaiKey, deepgramKey: c.deepgramKey })
    started.push(speech)
    // The OpenAI transcription stand-in has no conversation to count in: one rotation for all requests.
    const transcriptionTurns = {}
    const transcription = await startTranscriptionStandIn({
      host: HOST,
      apiKey: c.openaiKey,
      fallback: () => heard('openai', c.dialogue.nextLine(transcriptionTurns)),
    })
    started.push(transcription)
    const openai = await startOpenAiStandIn({
      host: HOST,
      port: c.openaiPort,
      apiKey: c.openaiKey,
      mount: [
        { prefix: '/v1/audio/speech', handler: speech.handler },
        { prefix: '/v1/audio/transcriptions', handler: transcription.handler },
      ],
    }).catch(portTaken('openai', c.openaiPort))
    started.push(openai)
    openai.fallback((userText) => {
      const reply = c.dialogue.replyTo(userText)
      c.onEvent?.({ kind: 'replied', userText, reply })
      return reply === null ? null : { text: reply }
    })
    const deepgram = await startDeepgramStandIn({
      host: HOST,
      port: c.deepgramPort,
      apiKey: c.deepgramKey,
      fallback: (session: DeepgramSession) => heard('deepgram', c.dialogue.nextLine(session)),
      mount: [{ prefix: '/v1/speak', handler: speech.handler }],
    }).catch(portTaken('deepgram', c.deepgramPort))
    started.push(deepgram)
    return { openaiUrl: openai.url, deepgramUrl: deepgram.url.replace(/^ws/, 'http'), close: closeAll }
  } catch (err) {
    await closeAll()
    throw err
  }

  function heard(provider: 'deepgram' | 'openai', line: string): string {
    c.onEvent?.({ kind: 'heard', provider, line })
    return line
  }
}
