/**
 * The report's chart, written by hand as SVG text (no charting dependency for one picture):
 * one horizontal box per latency distribution, each on its own axis (voice-to-voice is hundreds
 * of ms, the engine's share a few), then the capacity steps (jitter and loop lag p99 over sessions)
 * against their limits. The box spans p50–p95, the whisker min–max, a tick marks p99.
 */
import type { CapacityStep, Distribution } from './result.js'

const W = 760
const LEFT = 190
const RIGHT = 40
const ROW = 58

export interface ChartInput {
  title: string
  distributions: Array<{ label: string; dist: Distribution | null; goalMs?: number }>
  steps: CapacityStep[]
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const r1 = (n: number) => Math.round(n * 10) / 10
const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2))
const text = (x: number, y: number, s: string, extra = '') => `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${extra}>${esc(s)}</text>`

/** A "nice" upper bound for an axis: 1, 2 or 5 × 10^k at or above v. */
function niceMax(v: number): number {
  if (!(v > 0)) return 1
  const k = 10 ** Math.floor(Math.log10(v))
  return ([1, 2, 5, 10].find((m) => m * k >= v) ?? 10) * k
}

function boxRow(y: number, label: string, d: Distribution | null, goalMs: number | undefined): string[] {
  const out = [text(16, y + 22, label, ' font-weight="bold"')]
  if (!d || d.n === 0) return [...out, text(LEFT, y + 22, 'not measured', ' fill="#888"')]
  const lo = Math.min(0, d.min)
  const hi = niceMax(Math.max(d.max, goalMs ?? 0))
  const x = (v: number) => r1(LEFT + ((v - lo) / (hi - lo)) * (W - LEFT - RIGHT))
  const mid = y + 18
  out.push(
    `<line x1="${x(lo)}" y1="${y + 36}" x2="${x(hi)}" y2="${y + 36}" stroke="#ccc"/>`,
    text(x(lo), y + 50, fmt(lo), ' fill="#888" font-size="10" text-anchor="middle"'),
    text(x(hi), y + 50, `${fmt(hi)} ms`, ' fill="#888" font-size="10" text-anchor="middle"'),
    `<line x1="${x(d.min)}" y1="${mid}" x2="${x(d.max)}" y2="${mid}" stroke="#555"/>`,
    `<rect x="${x(d.p50)}" y="${mid - 8}" width="${r1(Math.max(1, x(d.p95) - x(d.p50)))}" height="16" fill="#9ecae1" stroke="#3182bd"/>`,
    `<line x1="${x(d.p50)}" y1="${mid - 10}" x2="${x(d.p50)}" y2="${mid + 10}" stroke="#08519c" stroke-width="3"/>`,
    `<line x1="${x(d.p99)}" y1="${mid - 6}" x2="${x(d.p99)}" y2="${mid + 6}" stroke="#de2d26" stroke-width="2"/>`,
    text(16, y + 38, `n ${d.n}  p50 ${fmt(d.p50)}  p95 ${fmt(d.p95)}  p99 ${fmt(d.p99)}`, ' fill="#555" font-size="10"'),
  )
  if (goalMs !== undefined) {
    out.push(
      `<line x1="${x(goalMs)}" y1="${y + 4}" x2="${x(goalMs)}" y2="${y + 32}" stroke="#31a354" stroke-dasharray="3,2"/>`,
      text(x(goalMs) + 3, y + 10, `p95 goal ${fmt(goalMs)}`, ' fill="#31a354" font-size="10"'),
    )
  }
  return out
}

function capacityPanel(y: number, steps: CapacityStep[]): string[] {
  const H = 200
  const out = [text(16, y + 14, 'Capacity: p99 over sessions (one core)', ' font-weight="bold"')]
  if (!steps.length) return [...out, text(LEFT, y + 14, 'not measured', ' fill="#888"')]
  const sorted = [...steps].sort((a, b) => a.sessions - b.sessions)
  // The verdict's jitter: the wire's where captured, else the callers'.
  const jit = (s: CapacityStep) => s.wire_jitter_p99_ms ?? s.jitter_p99_ms
  const xMax = niceMax(sorted.at(-1)!.sessions)
  const yMax = niceMax(Math.max(25, ...sorted.map((s) => Math.max(jit(s), s.loop_lag_p99_ms))))
  const top = y + 30
  const x = (v: number) => 60 + (v / xMax) * (W - 60 - RIGHT)
  const yy = (v: number) => top + H - (Math.min(v, yMax) / yMax) * H
  const line = (pick: (s: CapacityStep) => number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" points="${sorted.map((s) => `${x(s.sessions).toFixed(1)},${yy(pick(s)).toFixed(1)}`).join(' ')}"/>`
  out.push(
    `<rect x="60" y="${top}" width="${W - 60 - RIGHT}" height="${H}" fill="none" stroke="#ccc"/>`,
    text(56, top + 4, `${fmt(yMax)} ms`, ' fill="#888" font-size="10" text-anchor="end"'),
    text(56, top + H, '0', ' fill="#888" font-size="10" text-anchor="end"'),
    text(x(xMax), top + H + 14, `${xMax} sessions`, ' fill="#888" font-size="10" text-anchor="end"'),
    `<line x1="60" y1="${yy(10)}" x2="${W - RIGHT}" y2="${yy(10)}" stroke="#3182bd" stroke-dasharray="3,2"/>`,
    `<line x1="60" y1="${yy(20)}" x2="${W - RIGHT}" y2="${yy(20)}" stroke="#e6550d" stroke-dasharray="3,2"/>`,
    line(jit, '#3182bd'),
    line((s) => s.loop_lag_p99_ms, '#e6550d'),
    text(66, top + 14, 'jitter p99, wire where captured (limit 10 ms)', ' fill="#3182bd" font-size="11"'),
    text(66, top + 28, 'event-loop lag p99 (limit 20 ms)', ' fill="#e6550d" font-size="11"'),
  )
  for (const s of sorted) {
    out.push(
      s.valid === false
        ? `<circle cx="${x(s.sessions).toFixed(1)}" cy="${yy(jit(s)).toFixed(1)}" r="4" fill="#888"><title>${s.sessions} sessions: invalid (${esc(s.invalid_reason ?? 'not judged')})</title></circle>`
        : `<circle cx="${x(s.sessions).toFixed(1)}" cy="${yy(jit(s)).toFixed(1)}" r="4" fill="${s.ok ? '#31a354' : '#de2d26'}"><title>${s.sessions} sessions: ${s.ok ? 'ok' : `over the limit${s.jitter_clock ? `, jitter from the ${s.jitter_clock.replace(/_/g, ' ')}` : ''}`}</title></circle>`,
      text(x(s.sessions), top + H + 14, String(s.sessions), ' fill="#555" font-size="10" text-anchor="middle"'),
    )
  }
  return out
}

export function chartSvg(input: ChartInput): string {
  const body: string[] = [text(16, 24, input.title, ' font-size="15" font-weight="bold"')]
  let y = 40
  for (const d of input.distributions) {
    body.push(...boxRow(y, d.label, d.dist, d.goalMs))
    y += ROW
  }
  body.push(text(16, y + 4, 'box p50–p95 · whisker min–max · red tick p99 · dashed green: p95 goal', ' fill="#888" font-size="10"'))
  y += 20
  body.push(...capacityPanel(y, input.steps))
  const height = y + 260
  return (
    [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`,
      `<rect width="${W}" height="${height}" fill="#fff"/>`,
      ...body,
      '</svg>',
    ].join('\n') + '\n'
  )
}
