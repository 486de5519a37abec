/**
 * The browser-call section of the harness's markdown report (bench/voice/report.ts calls it with
 * the scenario's parsed JSON). Pure; a field the JSON lacks reads "—".
 */
import type { Distribution } from '../voice/result.js'
import type { BrowserCallResult } from './result.js'

const num = (n: unknown, digits = 1) => (typeof n === 'number' && Number.isFinite(n) ? String(Math.round(n * 10 ** digits) / 10 ** digits) : '—')

function row(label: string, d: Distribution | undefined): string {
  return d?.n ? `| ${label} | ${d.n} | ${num(d.p50)} | ${num(d.p95)} | ${num(d.max)} |` : `| ${label} | 0 | — | — | — |`
}

export function browserCallTables(r: Partial<BrowserCallResult>): string[] {
  const m = r.mouth_to_ear
  const b = r.barge_in
  const s = r.stats
  const c = r.config
  return [
    c
      ? `${r.machine?.chromium ?? 'Chromium (version unknown)'}, AudioContext at ${c.sample_rate_hz} Hz; end-of-turn wait ${c.end_of_turn_wait_ms} ms; ${c.turns} turns, ${c.barge_ins} barge-ins, ${c.flushes} flushes.`
      : '',
    '',
    '| figure (ms) | n | p50 | p95 | max |',
    '|---|---|---|---|---|',
    row('mouth-to-ear (mic speech end → first agent audio out)', m?.mouth_to_ear_ms),
    row("engine's voice-to-voice, same turns", m?.engine_v2v_ms),
    row('library adds (mouth-to-ear − engine)', m?.library_added_ms),
    row('… of it, socket → output', m?.playback_ms),
    row('… the rest (way in, hops, speech-end rules)', m?.rest_ms),
    row("engine's speech-end rule − the page's, on the page's audio", m?.edge_gap_ms),
    row('barge-in: onset → output silent', b?.onset_to_silent_ms),
    row('barge-in: onset → last agent audio at the socket', b?.onset_to_last_audio_ms),
    row('barge-in: last agent audio → output silent', b?.drain_ms),
    row('barge-in: clear → output silent (negative: silent before)', b?.clear_to_silent_ms),
    row('flush: clear → output silent (audio playing)', r.flush?.clear_to_silent_ms),
    '',
    `Barge-ins cleared ${num(b?.honoured, 0)}/${num(b?.n, 0)}; playback underruns ${num(s?.playback_underruns, 0)} (${num(s?.playback_underruns_in_flushes, 0)} in the flush phase); caller frames dropped ${num(s?.caller_frames_dropped, 0)} of ${num(s?.frames_sent, 0)} sent.`,
    ...(s?.output_holes?.length
      ? [
          '',
          `Holes in the output: ${s.output_holes.length} (${s.output_holes.map((h) => `at ${num(h.at_ms, 0)} ms: ${num(h.hole_ms)} ms quiet, the socket waited ${num(h.socket_gap_ms)} ms`).join('; ')}).`,
        ]
      : []),
    ...(m?.missed.length ? ['', `Turns not timed: ${m.missed.join('; ')}.`] : []),
  ]
}
