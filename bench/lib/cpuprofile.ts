import fs from 'node:fs'
import path from 'node:path'
import type { SourceLine } from './sourcemaps.js'

/** The parts of V8's .cpuprofile (what `node --cpu-prof` writes) this reads. */
interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  hitCount?: number
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples?: number[]
  timeDeltas?: number[]
}

export interface FrameCost {
  function: string
  /** Repo-relative path (or package path, or node: module) and 1-based line; native code says who called it. */
  where: string
  ms: number
  /** Share of busy (non-idle) time in the window. */
  pct: number
  /** Per request served in the window, when the bench said how many. */
  us_per_request?: number
}

export interface ProfileSummary {
  file: string
  /** Whether the samples were cut to the measured window (marks from the child's monotonic clock). */
  windowed: boolean
  window_ms: number
  busy_ms: number
  idle_ms: number
  top_self: FrameCost[]
  /** Self time summed by where the code lives: node core, a package, our own directories. */
  by_area: { area: string; ms: number; pct: number; us_per_request?: number }[]
  /** Inclusive (self + callees) time of our own functions: the request path's big spenders. */
  top_inclusive_ours: FrameCost[]
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)'])

export interface SummarizeOptions {
  /** Only samples in [fromUs, toUs) on the profiled process's monotonic clock. */
  fromUs?: number
  toUs?: number
  top?: number
  /** Maps generated positions (tsx output) back to source lines. */
  sourceLine?: SourceLine
  /** Requests served in the window, for per-request figures. */
  requests?: number
}

export function summarizeCpuProfile(file: string, repoRoot: string, o: SummarizeOptions = {}): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile
  const top = o.top ?? 15
  const byId = new Map<number, ProfileNode>()
  const parent = new Map<number, number>()
  for (const node of profile.nodes) {
    byId.set(node.id, node)
    for (const c of node.children ?? []) parent.set(c, node.id)
  }
  const rootUrl = 'file://' + path.resolve(repoRoot) + '/'

  const short = (url: string): string => {
    if (url.startsWith(rootUrl)) {
      const rel = url.slice(rootUrl.length)
      const nm = rel.lastIndexOf('node_modules/')
      return nm >= 0 ? rel.slice(nm + 'node_modules/'.length) : rel
    }
    return url
  }
  const ours = (url: string) => url.startsWith(rootUrl) && !url.includes('/node_modules/')
  const areaOfUrl = (url: string): string => {
    if (url.startsWith('node:')) return 'node core'
    const nm = url.lastIndexOf('/node_modules/')
    if (nm >= 0) {
      const parts = url.slice(nm + '/node_modules/'.length).split('/')
      return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!
    }
    if (ours(url)) return 'ozan ' + url.slice(rootUrl.length).split('/')[0]
    return url || '(unknown)'
  }
  const frameName = (f: CallFrame) => f.functionName || '(anonymous)'
  const frameWhere = (f: CallFrame) => `${short(f.url)}:${o.sourceLine?.(f.url, f.lineNumber, f.columnNumber) ?? f.lineNumber + 1}`
  /** Nearest ancestor with a script URL: who called into native code. */
  const jsCaller = (id: number): ProfileNode | undefined => {
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
      const n = byId.get(p)!
      if (n.callFrame.url) return n
    }
    return undefined
  }

  interface Info {
    key: string
    name: string
    where: string
    area: string
    ours: boolean
  }
  const infoCache = new Map<number, Info>()
  const info = (id: number): Info => {
    let i = infoCache.get(id)
    if (i) return i
    const f = byId.get(id)!.callFrame
    if (SPECIAL.has(f.functionName) && !f.url) {
      i = { key: f.functionName, name: f.functionName, where: '', area: f.functionName, ours: false }
    } else if (!f.url) {
      const caller = jsCaller(id)
      const where = caller ? `native, from ${frameName(caller.callFrame)} ${frameWhere(caller.callFrame)}` : 'native'
      i = { key: `${frameName(f)}|${where}`, name: frameName(f), where, area: (caller ? areaOfUrl(caller.callFrame.url) : '') + ' (native)', ours: false }
    } else {
      const where = frameWhere(f)
      i = { key: `${frameName(f)}|${where}|${f.columnNumber}`, name: frameName(f), where, area: areaOfUrl(f.url), ours: ours(f.url) }
    }
    infoCache.set(id, i)
    return i
  }

  const samples = profile.samples ?? []
  const deltas = profile.timeDeltas ?? []
  // Sample i was taken at startTime + sum(deltas[0..i]); it stands for the time until the next one.
  const stamps = new Float64Array(samples.length)
  let t = profile.startTime
  for (let i = 0; i < samples.length; i++) stamps[i] = t += deltas[i] ?? 0
  const from = o.fromUs ?? -Infinity
  const to = o.toUs ?? Infinity
  const windowed = o.fromUs !== undefined && o.toUs !== undefined && from >= profile.startTime && to <= profile.endTime

  const self = new Map<string, { info: Info; us: number }>()
  const incl = new Map<string, { info: Info; us: number }>()
  const areas = new Map<string, number>()
  let total = 0
  let idle = 0
  for (let i = 0; i < samples.length; i++) {
    if (windowed && (stamps[i]! < from || stamps[i]! >= to)) continue
    const dur = i + 1 < samples.length ? stamps[i + 1]! - stamps[i]! : 0
    const id = samples[i]!
    const me = info(id)
    total += dur
    if (me.key === '(idle)') {
      idle += dur
      continue
    }
    const s = self.get(me.key) ?? { info: me, us: 0 }
    s.us += dur
    self.set(me.key, s)
    areas.set(me.area, (areas.get(me.area) ?? 0) + dur)
    const seen = new Set<string>()
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const it = info(n)
      if (!it.ours || seen.has(it.key)) continue
      seen.add(it.key)
      const c = incl.get(it.key) ?? { info: it, us: 0 }
      c.us += dur
      incl.set(it.key, c)
    }
  }
  const busy = total - idle
  const ms = (us: number) => Math.round(us / 100) / 10
  const pct = (us: number) => (busy > 0 ? Math.round((us / busy) * 1000) / 10 : 0)
  const perReq = (us: number) => (o.requests ? { us_per_request: Math.round((us / o.requests) * 10) / 10 } : {})
  const rank = (m: Map<string, { info: Info; us: number }>) =>
    [...m.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ info: i, us }) => ({ function: i.name, where: i.where, ms: ms(us), pct: pct(us), ...perReq(us) }))
  return {
    file,
    windowed,
    window_ms: ms(total),
    busy_ms: ms(busy),
    idle_ms: ms(idle),
    top_self: rank(self),
    by_area: [...areas.entries()].sort((a, b) => b[1] - a[1]).map(([area, us]) => ({ area, ms: ms(us), pct: pct(us), ...perReq(us) })),
    top_inclusive_ours: rank(incl),
  }
}

/** The summary as text tables, for a terminal. */
export function formatProfile(title: string, s: ProfileSummary): string {
  const cols = (c: { pct: number; ms: number; us_per_request?: number }) =>
    `${c.pct.toFixed(1).padStart(5)}%  ${c.ms.toFixed(1).padStart(8)} ms` +
    (c.us_per_request === undefined ? '' : `  ${c.us_per_request.toFixed(1).padStart(6)} µs/req`)
  const lines = [
    `${title}: ${s.busy_ms} ms busy of ${s.window_ms} ms sampled${s.windowed ? ' (measured window only)' : ' (whole process life)'}; ${s.file}`,
    '  top self time (% of busy):',
    ...s.top_self.map((f, i) => `  ${String(i + 1).padStart(3)}. ${cols(f)}  ${f.function}  ${f.where}`),
    '  self time by area:',
    ...s.by_area.slice(0, 15).map((a) => `       ${cols(a)}  ${a.area}`),
    '  our functions, inclusive time:',
    ...s.top_inclusive_ours.map((f) => `       ${cols(f)}  ${f.function}  ${f.where}`),
  ]
  return lines.join('\n')
}
