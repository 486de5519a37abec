/**
 * The agent's side of a voice case, transcribed: its audio between one caller line and the next is
 * run through the agent's own speech-to-text after the call, so the result shows what a caller's
 * ears got, beside the engine's own record of what it played.
 */
import type { SttProvider } from '../../engine/pipeline/providers/stt/index.js'

/** Silence after a segment (20 ms frames), so a recognizer that endpoints on quiet finalizes it. */
const TAIL_FRAMES = 25
const TAIL = new Int16Array(320)
/** Frames handed over per 20 ms. */
const PACE_FRAMES = 4
/** How long a final may take after the segment's end. */
const FINAL_WAIT_MS = 1000

/** The agent's audio cut at each caller line's start: segment 0 is the opening, n the answer to line n. */
export function agentSegments(audio: { at: number; pcm: Int16Array }[], callerStarts: number[]): Int16Array[][] {
  const segments: Int16Array[][] = Array.from({ length: callerStarts.length + 1 }, () => [])
  for (const f of audio) {
    let i = 0
    while (i < callerStarts.length && f.at >= callerStarts[i]!) i++
    segments[i]!.push(f.pcm)
  }
  return segments
}

/** One segment's words by the recognizer (its finals joined); null when it heard nothing or had no audio. */
export async function transcribe(stt: SttProvider, frames: Int16Array[], language: string, signal: AbortSignal): Promise<string | null> {
  if (!frames.length) return null
  const stream = stt.open({ language, signal, sampleRate: 16000 })
  const finals: string[] = []
  const reading = (async () => {
    for await (const e of stream.events) {
      if (e.type === 'final' && e.text.trim()) finals.push(e.text.trim())
      // A failure is recorded as nothing heard: the engine's own transcript still stands.
      if (e.type === 'error') return
    }
  })()
  // Four times real time: a live recognizer holds only so much audio while it connects, and its
  // socket only so much unsent; a close before it connected would drop the segment.
  const all = [...frames, ...Array<Int16Array>(TAIL_FRAMES).fill(TAIL)]
  for (let i = 0; i < all.length; i += PACE_FRAMES) {
    signal.throwIfAborted()
    for (const f of all.slice(i, i + PACE_FRAMES)) stream.push(f)
    await new Promise((r) => setTimeout(r, 20))
  }
  stream.endUtterance()
  // The final follows the endpoint (a live recognizer's delay), then the stream is closed.
  await new Promise((r) => setTimeout(r, FINAL_WAIT_MS))
  await stream.close()
  await reading
  return finals.join(' ') || null
}
