// Just enough of autocannon 9's programmatic API for the benches (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'
  namespace autocannon {
    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      pipelining?: number
      method?: string
      headers?: Record<string, string>
      body?: string
      /** Seconds before a request counts as timed out. */
      timeout?: number
      workers?: number
    }
    /** hdr-histogram summary; latency values are whole milliseconds. */
    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total: number
      p50: number
      p90: number
      p99: number
      p99_9: number
    }
    interface Result {
      url: string
      duration: number
      connections: number
      pipelining: number
      latency: Histogram
      requests: Histogram
      throughput: Histogram
      errors: number
      timeouts: number
      non2xx: number
      '2xx': number
      mismatches: number
      resets: number
    }
    interface Instance extends EventEmitter {
      stop(): void
    }
  }
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, result: autocannon.Result) => void): autocannon.Instance
  export = autocannon
}
