/**
 * The conversation-quality section of the harness's markdown report (bench/voice/report.ts calls
 * it with the scenario's parsed JSON). Pure; a field the JSON lacks reads "—".
 */
import type { Distribution } from '../voice/result.js'
import type { ConversationQualityResult } from './scores.js'

const num = (n: unknown, digits = 1) => (typeof n === 'number' && Number.isFinite(n) ? String(Math.round(n * 10 ** digits) / 10 ** digits) : '—')
const of = (k: unknown, n: unknown) => `${num(k, 0)}/${num(n, 0)}`
const pct = (x: unknown) => (typeof x === 'number' ? `${num(x * 100)} %` : '—')
const dist = (d: Distribution | undefined) => (d && d.n ? `p50 ${num(d.p50)}, p95 ${num(d.p95)}, max ${num(d.max)} (n ${d.n})` : '—')

export function conversationQualityTables(r: Partial<ConversationQualityResult>): string[] {
  const b = r.backchannels
  const noise = r.noise
  const bi = r.barge_ins
  const p = r.pauses
  const byPause = Object.entries(p?.by_pause_ms ?? {})
    .sort(([a], [c]) => Number(a) - Number(c))
    .map(([ms, x]) => `${ms} ms: ${of(x.premature, x.n)}`)
    .join(', ')
  const heard = r.transcript_heard
  const out = [
    r.config
      ? `Agent turn-taking: ${typeof r.config.turn_taking === 'string' ? r.config.turn_taking : JSON.stringify(r.config.turn_taking)}; voices ${r.config.voices.join(', ')} at ${r.config.rates_wpm.join('/')} wpm; seed ${r.config.seed}.`
      : '',
    '',
    '| situation | figure | value |',
    '|---|---|---|',
    `| backchannels | ignored | ${of(b?.ignored, b?.n)} (${pct(b?.ignored_share)}) |`,
    `| backchannels | interrupted the agent / became a user turn | ${num(b?.interrupted, 0)} / ${num(b?.user_turns, 0)} |`,
    `| coughs, clicks | ignored | ${of(noise?.ignored, noise?.n)} (${pct(noise?.ignored_share)}) |`,
    `| backchannels, coughs, clicks | false-interruption resumes (paused, then went on) | ${num(r.false_interruption_resumes, 0)} |`,
    `| barge-ins | honoured | ${of(bi?.honoured, bi?.n)} (${pct(bi?.honoured_share)}) |`,
    `| barge-ins | honoured within 150 ms of onset | ${of(bi?.in_time, bi?.n)} (${pct(bi?.in_time_share)}) |`,
    `| barge-ins | paused, then talked on before giving up the turn | ${of(bi?.resumed, bi?.n)} |`,
    `| barge-ins | stop from speech onset (ms) | ${dist(bi?.stop_ms)} |`,
    `| barge-ins | engine decision → paused (ms) | ${dist(bi?.engine_stop_ms)} |`,
    `| pauses ≤ ${num(p?.goal_max_pause_ms, 0)} ms | premature end of turn | ${of(p?.premature_short, p?.short_n)} |`,
    `| pauses, by length | premature end of turn | ${byPause || '—'} |`,
    `| pauses | split in two turns / one turn with every word | ${num(p?.split, 0)} / ${num(p?.joined, 0)} of ${num(p?.n, 0)} |`,
    `| long turns | premature end of turn / answered | ${num(r.long_turns?.premature, 0)} / ${num(r.long_turns?.answered, 0)} of ${num(r.long_turns?.n, 0)} |`,
    `| fast turn-taking | turns answered / transcribed exactly | ${of(r.fast_turns?.answered, r.fast_turns?.turns)} / ${of(r.fast_turns?.exact, r.fast_turns?.turns)} |`,
    `| agent transcripts | only what the caller heard (exact / overclaimed / underclaimed) | ${num(heard?.exact, 0)} / ${num(heard?.overclaimed, 0)} / ${num(heard?.underclaimed, 0)} of ${num(heard?.checked, 0)} |`,
  ]
  if (r.invalid?.length) out.push('', `Not scored (could not be staged as labelled): ${r.invalid.map((i) => `${i.id} (${i.reason})`).join('; ')}.`)
  return out
}
