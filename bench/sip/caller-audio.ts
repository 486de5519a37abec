/**
 * What every SIPp caller says, on a loop: espeak-ng lines, each followed by silence long enough
 * for the agent's reply, as raw 8 kHz µ-law (what SIPp's rtp_stream sends as PCMU, 160 bytes a
 * packet). Silence is digital (µ-law 0xFF): the phone line has no room noise before our engine,
 * and the engine's Silero gate skips it, as it skips a web caller's quiet room.
 */
import { resample } from '../../engine/audio/index.js'
import { encodeMulaw } from '../../sip/index.js'
import { speak } from '../../test/helpers/speech.js'
import { CAPACITY_CALLER_PAUSE_MS, CAPACITY_MS_PER_CHAR, CAPACITY_REPLY, END_OF_TURN_WAIT_MS } from '../voice/setup.js'

export const CALLER_LINES = [
  'I would like to book a table for two tonight',
  'Do you have any vegetarian dishes on the menu',
  'What is the address of the restaurant',
]

/**
 * Silence after each line, in the web capacity callers' cadence (they listen to the reply, then
 * pause): the end-of-turn wait, the capacity stand-ins' delays (STT 100, LLM 100, TTS 50 ms), the
 * reply (CAPACITY_REPLY, ~7.1 s) and the web callers' mean pause. SIPp cannot wait for the reply,
 * so the loop is timed to hold it; the agent is not barged into. A phone call and a web call then
 * carry the same conversation: a turn every ~10.5 s, the caller talking ~20 % of the time.
 */
export const LISTEN_MS = END_OF_TURN_WAIT_MS + 250 + CAPACITY_REPLY.length * CAPACITY_MS_PER_CHAR + CAPACITY_CALLER_PAUSE_MS

export interface CallerLoop {
  /** Raw µ-law bytes, a whole number of 20 ms packets. */
  mulaw: Buffer
  /** One pass of the loop. */
  durationMs: number
  /** Where each line's speech ends in the loop (ms from its start). */
  speechEndsMs: number[]
}

export async function callerLoop(): Promise<CallerLoop> {
  const parts: Int16Array[] = []
  const speechEndsMs: number[] = []
  let samples = 0
  for (const text of CALLER_LINES) {
    const pcm8k = resample(await speak(text, 'en'), 16_000, 8000)
    parts.push(pcm8k, new Int16Array((LISTEN_MS * 8000) / 1000))
    speechEndsMs.push(((samples + pcm8k.length) * 1000) / 8000)
    samples += pcm8k.length + (LISTEN_MS * 8000) / 1000
  }
  const packets = Math.ceil(samples / 160)
  const pcm = new Int16Array(packets * 160)
  let at = 0
  for (const p of parts) pcm.set(p, at), (at += p.length)
  const mulaw = Buffer.alloc(pcm.length)
  encodeMulaw(pcm, mulaw)
  return { mulaw, durationMs: packets * 20, speechEndsMs }
}
