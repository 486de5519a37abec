import type { BargeInEvent, TurnDecision, TurnEvent } from '../../../engine/turn-taking/index.js'

/** Scripted events plus a tick every 20 ms (as the pipeline ticks per frame), in time order. */
// Method syntax is checked bivariantly, so strategies (TurnEvent) and BargeIn (BargeInEvent) both fit.
export function drive<D>(s: { handle(e: BargeInEvent): D[] }, script: readonly BargeInEvent[], untilMs: number): D[] {
  const out: D[] = []
  const events = [...script].sort((a, b) => a.at - b.at)
  let k = 0
  for (let at = 0; at <= untilMs; at += 20) {
    while (k < events.length && events[k]!.at <= at) out.push(...s.handle(events[k++]!))
    out.push(...s.handle({ type: 'tick', at }))
  }
  return out
}

export const speech = (start: number, end: number): TurnEvent[] => [
  { type: 'speech_start', at: start },
  { type: 'speech_end', at: end },
]
export const final = (text: string, at: number): TurnEvent => ({ type: 'transcript', text, final: true, at })
export const partial = (text: string, at: number): TurnEvent => ({ type: 'transcript', text, final: false, at })
export const ends = (ds: TurnDecision[]) => ds.filter((d) => d.type === 'end_of_turn')
