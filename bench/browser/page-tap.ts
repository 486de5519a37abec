/**
 * What browser-call adds to the call page (test/client/call-page.ts) to time a call on the page's
 * own clocks, without touching the library:
 *
 * - an init script, run before the page's own script: it keeps the MediaStreamSource nodes the
 *   page creates (the library's microphone source), stamps every binary WebSocket message the
 *   library receives (agent audio) with performance.now(), and defines the `__name` helper that
 *   functions compiled by tsx carry into the page (the tests run under ts-node, which has none);
 * - a tap: an AudioWorklet node in the call's own AudioContext with two inputs, the library's own
 *   microphone source node (not a second source on the same track: each source node has its own
 *   FIFO from the track into the graph, and a second one got the same sample at another frame,
 *   −0.7, +9.3, then −7.8 and +2.2 ms off in three runs, jumping by 10 ms within the last) and the
 *   library's output node (what the caller hears). On the audio thread it sees every sample of
 *   both as the library's worklets do, so each edge (sound starts, sound stops) is found at the
 *   sample, by `currentFrame`: the AudioContext's sample clock, one clock for the microphone and
 *   the output alike. Each edge's message is also stamped with
 *   performance.now() when the main thread gets it: the audio thread posts it while rendering the
 *   quantum that holds the edge, so the stamp is the instant the graph rendered it (plus the
 *   message's hop), on the clock of the library's events.
 */
import type { Page } from 'playwright-core'

/** An edge of one tap input, on the AudioContext's sample clock. */
export interface TapEdge {
  input: 'mic' | 'out'
  /** `on`: the first sample at or above the input's threshold after at least `holdMs` below it; `off`: the first sample of such a quiet stretch. */
  kind: 'on' | 'off'
  frame: number
  /**
   * performance.now() when the main thread got the message. The audio thread posts it while
   * rendering the quantum that decides the edge: `frame`'s own for `on`, `holdMs` later for `off`.
   */
  receivedAt: number
  /** `off` of an input with `blockDbfs`: the end of its last loud 8 ms block (the engine's rule for a speech end). */
  blockEnd?: number
}

export interface TapOptions {
  /** |sample| at or above this is sound. */
  threshold: number
  /** Quiet needed between two stretches of sound, in ms (bridges the stops and inner pauses of speech). */
  holdMs: number
  /** Also find where the engine's rule would put a sound's end: the last 8 ms block at or above this mean power. */
  blockDbfs?: number
}

export interface PageTimings {
  sampleRateHz: number
  edges: TapEdge[]
  /** performance.now() of every binary message the library's socket received (agent audio). */
  agentAudioAt: number[]
}

/** Runs in the page before its own script (BrowserContext.addInitScript). */
export const INIT_SCRIPT = `(() => {
  // tsx compiles with esbuild's keepNames, which wraps named functions in __name(fn, 'name'); the
  // functions Playwright sends to the page (call-page.ts's among them) carry those calls with them.
  window.__name = (fn) => fn
  const bench = { sources: [], agentAudioAt: [], edges: [], sampleRateHz: 0 }
  window.__bench = bench
  const createMediaStreamSource = AudioContext.prototype.createMediaStreamSource
  AudioContext.prototype.createMediaStreamSource = function (stream) {
    const node = createMediaStreamSource.call(this, stream)
    bench.sources.push(node)
    return node
  }
  const NativeWebSocket = window.WebSocket
  window.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      super(url, protocols)
      // Registered before the library sets onmessage, so it runs first, in the same task.
      this.addEventListener('message', (e) => {
        if (typeof e.data !== 'string') bench.agentAudioAt.push(performance.now())
      })
    }
  }
})()`

/** The tap's processor, loaded into the call's AudioContext from a Blob URL. */
const TAP_PROCESSOR = `
class BenchTap extends AudioWorkletProcessor {
  constructor(options) {
    super()
    const o = options.processorOptions
    this.inputs = o.inputs.map((x) => ({
      name: x.name,
      threshold: x.threshold,
      hold: Math.round((x.holdMs * sampleRate) / 1000),
      loud: false,
      quiet: Infinity,
      lastLoud: -1,
      // The engine's rule for a speech end, on this audio: the end of the last 8 ms block whose
      // mean power reaches blockDbfs (engine/vad/refine.ts), blocks from this node's first frame.
      blockPower: x.blockDbfs === undefined ? null : Math.pow(10, x.blockDbfs / 10),
      blockLength: Math.round(0.008 * sampleRate),
      blockSum: 0,
      blockFill: 0,
      lastLoudBlockEnd: -1,
    }))
  }
  process(inputs) {
    const start = currentFrame
    for (let k = 0; k < this.inputs.length; k++) {
      const d = this.inputs[k]
      // An input with nothing connected (yet) has no channels: it is silence.
      const ch = inputs[k] && inputs[k][0]
      const n = ch ? ch.length : 128
      for (let i = 0; i < n; i++) {
        const v = ch ? Math.abs(ch[i]) : 0
        if (d.blockPower !== null) {
          d.blockSum += v * v
          if (++d.blockFill === d.blockLength) {
            if (d.blockSum / d.blockLength >= d.blockPower) d.lastLoudBlockEnd = start + i + 1
            d.blockSum = 0
            d.blockFill = 0
          }
        }
        if (v >= d.threshold) {
          if (!d.loud) {
            d.loud = true
            this.port.postMessage({ input: d.name, kind: 'on', frame: start + i })
          }
          d.lastLoud = start + i
          d.quiet = 0
        } else if (++d.quiet === d.hold && d.loud) {
          d.loud = false
          const off = { input: d.name, kind: 'off', frame: d.lastLoud + 1 }
          if (d.blockPower !== null) off.blockEnd = d.lastLoudBlockEnd
          this.port.postMessage(off)
        }
      }
    }
    return true
  }
}
registerProcessor('bench-tap', BenchTap)
`

interface BenchGlobals {
  __bench: PageTimings & { sources: MediaStreamAudioSourceNode[] }
  call: { audioContext: AudioContext | null; outputNode: AudioNode | null; status: string } | null
}

/**
 * Installs the tap once the page's call has its AudioContext, output node and microphone; resolves
 * with the context's sample rate. Rejects when they do not appear within `timeoutMs`.
 */
export async function installTap(page: Page, o: { mic: TapOptions; out: TapOptions; timeoutMs?: number }): Promise<number> {
  await page.waitForFunction(
    () => {
      const w = window as unknown as BenchGlobals
      return Boolean(w.call?.audioContext && w.call.outputNode && w.__bench.sources.length > 0)
    },
    undefined,
    { timeout: o.timeoutMs ?? 10_000, polling: 20 },
  )
  return page.evaluate(
    async ({ source, mic, out }) => {
      const w = window as unknown as BenchGlobals
      const ctx = w.call!.audioContext!
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }))
      try {
        await ctx.audioWorklet.addModule(url)
      } finally {
        URL.revokeObjectURL(url)
      }
      const tap = new AudioWorkletNode(ctx, 'bench-tap', {
        numberOfInputs: 2,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
        processorOptions: {
          inputs: [
            { name: 'mic', ...mic },
            { name: 'out', ...out },
          ],
        },
      })
      const bench = w.__bench
      bench.sampleRateHz = ctx.sampleRate
      tap.port.onmessage = (e: MessageEvent<Omit<TapEdge, 'receivedAt'>>) => {
        bench.edges.push({ ...e.data, receivedAt: performance.now() })
      }
      // The newest source is the one feeding the library's capture worklet (a device switch makes another).
      bench.sources.at(-1)!.connect(tap, 0, 0)
      w.call!.outputNode!.connect(tap, 0, 1)
      // Keeps the node (and its port) reachable for as long as the page lives.
      ;(window as unknown as { __benchTap: AudioWorkletNode }).__benchTap = tap
      return ctx.sampleRate
    },
    { source: TAP_PROCESSOR, mic: o.mic, out: o.out },
  )
}

/** Everything the tap and the socket stamps have gathered so far. */
export function readTimings(page: Page): Promise<PageTimings> {
  return page.evaluate(() => {
    const b = (window as unknown as BenchGlobals).__bench
    return { sampleRateHz: b.sampleRateHz, edges: b.edges, agentAudioAt: b.agentAudioAt }
  })
}
