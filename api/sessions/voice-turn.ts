/**
 * A spoken turn of a text session (POST …/sessions/{id}/voice): the audio is transcribed, the words
 * run as the caller's message (the same turn as a typed one, serialized with it), and the reply is
 * spoken back as a 16 kHz mono WAV. Nothing is recorded when the audio is unusable, no words are
 * heard, or recognition fails; a failed synthesis comes after the turn is recorded.
 */
import type { Logger } from '../../core/index.js'
import type { SessionRow } from '../../db/index.js'
import type { AgentConfig } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { RawBody } from '../http/raw.js'
import type { TurnFields } from './schema.js'
import { storedConfig } from './stored-agent.js'
import { SAMPLE_RATE } from '../../engine/audio/index.js'
import { SPEECH_USAGE_EVENT } from './report.js'
import { decodeVoiceAudio, spokenCharacters, noSpeech, speechApiError, synthesize, transcribe, wavAudio } from './voice.js'
import type { VoiceProviders } from './voice-providers.js'

export interface VoiceTurn {
  body: RawBody
  sessionId: string
  logger: Logger
  /** Deadline of the recognition, then again of the synthesis. */
  timeoutMs: number
  /** STT and TTS for the session's agent config; throws provider_not_configured. */
  voiceFor: (config: AgentConfig) => VoiceProviders
  /** Runs one caller turn with the words `hear` gives, inside the session's lock. */
  callerTurn: (hear: (row: SessionRow) => Promise<Heard>) => Promise<TurnFields>
}

/**
 * A caller's words, and for a spoken turn what its speech used: the audio sent to STT, and the
 * language its reply is spoken in (the characters sent to TTS are counted from the reply).
 */
export interface Heard {
  text: string
  speech?: { sttAudioMs: number; ttsLanguage: string }
}

/**
 * A spoken turn's speech, metered with the turn (report.ts sums it): the audio sent to STT and the
 * reply's characters as TTS will be sent them, counted now since this very turn may end the
 * session and settle its cost before the reply is synthesized. None for a typed turn.
 */
export function speechUsageEvents(heard: Heard | null, says: readonly string[]): { kind: string; data: Record<string, number> }[] {
  if (!heard?.speech) return []
  const data = { stt_audio_ms: heard.speech.sttAudioMs, tts_characters: spokenCharacters(says, heard.speech.ttsLanguage) }
  return [{ kind: SPEECH_USAGE_EVENT, data }]
}

export async function voiceTurn(o: VoiceTurn): Promise<TurnFields & { transcript: string; audio: ReturnType<typeof wavAudio> | null }> {
  let transcript = ''
  let speech: VoiceProviders | undefined
  const turn = await o.callerTurn(async (row) => {
    const pcm = decodeVoiceAudio(o.body)
    speech = o.voiceFor(storedConfig(row.config))
    const signal = AbortSignal.timeout(o.timeoutMs)
    try {
      transcript = await transcribe(speech.stt, pcm, speech.sttLanguage, signal)
    } catch (err) {
      o.logger.warn({ session_id: row.id, err: (err as Error).message }, 'voice turn: speech-to-text failed')
      throw speechApiError(err)
    }
    if (signal.aborted) throw new ApiError('service_unavailable')
    if (!transcript) throw noSpeech()
    return { text: transcript, speech: { sttAudioMs: Math.round((pcm.length * 1000) / SAMPLE_RATE), ttsLanguage: speech.ttsLanguage } }
  })
  const s = speech!
  let audio: ReturnType<typeof wavAudio> | null = null
  if (turn.messages.some((m) => m.trim())) {
    try {
      audio = wavAudio(await synthesize(s.tts, turn.messages, { voice: s.voice, language: s.ttsLanguage, signal: AbortSignal.timeout(o.timeoutMs) }))
    } catch (err) {
      // The turn is recorded by now (GET …/events has it); only its audio is missing.
      o.logger.warn({ session_id: o.sessionId, err: (err as Error).message }, 'voice turn: text-to-speech failed')
      throw speechApiError(err)
    }
  }
  return { ...turn, transcript, audio }
}
