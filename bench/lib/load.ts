import autocannon from 'autocannon'

export interface LoadOptions {
  connections: number
  /** Seconds. */
  duration: number
  headers?: Record<string, string>
}

export interface LoadFigures {
  /** Mean of autocannon's per-second request counts. */
  rps: number
  /** Every response whose latency went into the percentiles (2xx only). */
  requests: number
  /** Exact percentiles over every 2xx response (autocannon's own are whole milliseconds). */
  mean_ms: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  p99_9_ms: number
  max_ms: number
  /** Response bytes per request as received (status line, headers and body). */
  bytes_per_response: number
  non2xx: number
  errors: number
  timeouts: number
  duration_s: number
  /** The server process's CPU time over the run as a share of one core (100 = one core busy). */
  server_cpu_pct?: number
  /** The server process's CPU time per request served. */
  server_cpu_us_per_request?: number
  /** The kernel's part of the server's CPU time (socket writes, file locks...), in percent. */
  server_sys_share_pct?: number
  /** The load generator's (this process's) CPU time over the run, as a share of one core. */
  loadgen_cpu_pct?: number
  /** Everything else on the machine over the run (other processes: contention), share of one core. */
  other_cpu_pct?: number
}

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]!
}

/** One closed-loop autocannon run (no pipelining); latencies recorded exactly from its events. */
export function runLoad(url: string, o: LoadOptions): Promise<LoadFigures> {
  let latencies = new Float64Array(1 << 18)
  let n = 0
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: o.connections, duration: o.duration, pipelining: 1, headers: o.headers, timeout: 10 }, (err, r) => {
      if (err) return reject(err)
      const sorted = latencies.subarray(0, n).sort()
      let sum = 0
      for (let i = 0; i < n; i++) sum += sorted[i]!
      resolve({
        rps: Math.round(r.requests.average),
        requests: n,
        mean_ms: round(sum / Math.max(1, n), 3),
        p50_ms: round(percentile(sorted, 50), 3),
        p90_ms: round(percentile(sorted, 90), 3),
        p99_ms: round(percentile(sorted, 99), 3),
        p99_9_ms: round(percentile(sorted, 99.9), 3),
        max_ms: round(sorted[n - 1] ?? NaN, 3),
        bytes_per_response: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        duration_s: r.duration,
      })
    })
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 200 || status > 299) return
      if (n === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2)
        bigger.set(latencies)
        latencies = bigger
      }
      latencies[n++] = ms
    })
  })
}

/** Median of several runs' figures, field by field (rounds > 1 damp a noisy machine). */
export function medianFigures(runs: LoadFigures[]): LoadFigures {
  if (runs.length === 1) return runs[0]!
  const med = (pick: (f: LoadFigures) => number) => {
    const v = runs.map(pick).sort((a, b) => a - b)
    const mid = v.length >> 1
    return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2
  }
  const sum = (pick: (f: LoadFigures) => number) => runs.reduce((s, f) => s + pick(f), 0)
  return {
    rps: Math.round(med((f) => f.rps)),
    requests: sum((f) => f.requests),
    mean_ms: round(
      med((f) => f.mean_ms),
      3,
    ),
    p50_ms: round(
      med((f) => f.p50_ms),
      3,
    ),
    p90_ms: round(
      med((f) => f.p90_ms),
      3,
    ),
    p99_ms: round(
      med((f) => f.p99_ms),
      3,
    ),
    p99_9_ms: round(
      med((f) => f.p99_9_ms),
      3,
    ),
    max_ms: Math.max(...runs.map((f) => f.max_ms)),
    bytes_per_response: Math.round(med((f) => f.bytes_per_response)),
    non2xx: sum((f) => f.non2xx),
    errors: sum((f) => f.errors),
    timeouts: sum((f) => f.timeouts),
    duration_s: sum((f) => f.duration_s),
    ...(runs.every((f) => f.server_cpu_pct !== undefined)
      ? {
          server_cpu_pct: Math.round(med((f) => f.server_cpu_pct!)),
          server_cpu_us_per_request: Math.round(med((f) => f.server_cpu_us_per_request!)),
          server_sys_share_pct: Math.round(med((f) => f.server_sys_share_pct ?? 0)),
          loadgen_cpu_pct: Math.round(med((f) => f.loadgen_cpu_pct ?? 0)),
          other_cpu_pct: Math.round(med((f) => f.other_cpu_pct ?? 0)),
        }
      : {}),
  }
}
