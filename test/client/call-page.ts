import http from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import type { LaunchedChromium } from '../helpers/chromium.js'

/**
 * A customer's page, as small as the README's example: served from its own origin (so importing
 * the library from the API's /client/v1/ozan-web.js is a cross-origin module load, as on a real
 * site), it imports the library, and records for the test every event with its time, what the
 * speakers get (an AnalyserNode on the library's output node, read every few ms), and whether a
 * microphone track is still live.
 */

export interface Logged {
  name: string
  /** performance.now() in the page. */
  atMs: number
  payload: unknown
}

export interface StartOptions {
  token: string
  wsUrl: string
  micMuted?: boolean
  assistantMuted?: boolean
}

/** What the page's script puts on `window`. */
interface PageGlobals {
  log: Logged[]
  /** [performance.now(), peak |sample| over the analyser's last 256 samples]. */
  output: Array<[number, number]>
  micLive(): boolean
  /** Microphone tracks the page was given that are still live. */
  liveTracks(): number
  startCall(o: StartOptions): void
  call: {
    setMicMuted(m: boolean): void
    setAssistantMuted(m: boolean): void
    stop(): Promise<void>
    stats: Record<string, number>
    callId: string | null
    status: string
    audioContext: { state: string; sampleRate: number } | null
  } | null
}

const pageScript = (libraryUrl: string) => `
import { WebCall } from ${JSON.stringify(libraryUrl)}
const log = []
const output = []
const streams = []
const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices)
navigator.mediaDevices.getUserMedia = async (c) => {
  const s = await getUserMedia(c)
  streams.push(s)
  return s
}
const EVENTS = ['status', 'transcript', 'ended', 'error', 'volume', 'metrics', 'connected', 'clear', 'transfer']
Object.assign(window, {
  log,
  output,
  call: null,
  liveTracks: () => streams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === 'live').length,
  micLive: () => streams.some((s) => s.getTracks().some((t) => t.readyState === 'live')),
  startCall(o) {
    const call = new WebCall({ token: o.token, wsUrl: o.wsUrl })
    window.call = call
    for (const name of EVENTS) call.on(name, (payload) => log.push({ name, atMs: performance.now(), payload }))
    if (o.micMuted) call.setMicMuted(true)
    if (o.assistantMuted) call.setAssistantMuted(true)
    call.start().then(
      () => log.push({ name: 'started', atMs: performance.now(), payload: null }),
      (e) => log.push({ name: 'rejected', atMs: performance.now(), payload: { code: e.code, message: e.message, isWebCallError: e.name === 'WebCallError' } }),
    )
    const attach = () => {
      const node = call.outputNode
      if (!node) return call.status === 'ended' ? undefined : setTimeout(attach, 2)
      const analyser = node.context.createAnalyser()
      analyser.fftSize = 256
      node.connect(analyser)
      const buf = new Float32Array(analyser.fftSize)
      const read = () => {
        if (call.status === 'ended') return
        analyser.getFloatTimeDomainData(buf)
        let peak = 0
        for (const v of buf) peak = Math.max(peak, Math.abs(v))
        output.push([performance.now(), peak])
        setTimeout(read, 2)
      }
      read()
    }
    attach()
  },
})
document.title = 'ready'
`

export interface PageServer {
  url: string
  close(): Promise<void>
}

/** Serves the page (importing the library from `libraryUrl`) at `/` of a new origin. */
export async function servePage(libraryUrl: string): Promise<PageServer> {
  const html = `<!doctype html><meta charset="utf-8"><title>loading</title><script type="module">${pageScript(libraryUrl)}</script>`
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8')
    res.end(html)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export interface CallPage {
  page: Page
  start(o: StartOptions): Promise<void>
  /** The first logged event named `name` whose payload has the fields of `match` (or equals it, for a string payload), after `after` ms. */
  event(name: string, match?: unknown, timeoutMs?: number, afterMs?: number): Promise<Logged>
  log(): Promise<Logged[]>
  output(): Promise<Array<[number, number]>>
  micLive(): Promise<boolean>
  now(): Promise<number>
  /** Runs `fn` with the page's WebCall. */
  call<T>(fn: (call: NonNullable<PageGlobals['call']>) => T | Promise<T>): Promise<T>
}

export async function openCallPage(browser: LaunchedChromium, url: string): Promise<CallPage> {
  const page = await browser.newPage()
  await page.goto(url)
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 10_000 })
  return {
    page,
    start: (o) => page.evaluate((o) => (window as unknown as PageGlobals).startCall(o), o),
    async event(name, match = {}, timeoutMs = 10_000, afterMs = 0) {
      const handle = await page
        .waitForFunction(
          ({ name, match, afterMs }) => {
            const fits = (payload: unknown) =>
              typeof match === 'object' && match !== null
                ? Object.keys(match).length === 0 ||
                  (typeof payload === 'object' && payload !== null && Object.entries(match).every(([k, v]) => (payload as Record<string, unknown>)[k] === v))
                : payload === match
            return (window as unknown as PageGlobals).log.find((e) => e.name === name && e.atMs >= afterMs && fits(e.payload)) ?? false
          },
          { name, match, afterMs },
          { timeout: timeoutMs, polling: 10 },
        )
        .catch(async (err: unknown) => {
          const seen = await page.evaluate(() => (window as unknown as PageGlobals).log.filter((e) => e.name !== 'volume'))
          throw new Error(`no ${name} ${JSON.stringify(match)} within ${timeoutMs} ms; the page logged ${JSON.stringify(seen)} (${err})`)
        })
      return (await handle.jsonValue()) as Logged
    },
    log: () => page.evaluate(() => (window as unknown as PageGlobals).log),
    output: () => page.evaluate(() => (window as unknown as PageGlobals).output),
    micLive: () => page.evaluate(() => (window as unknown as PageGlobals).micLive()),
    now: () => page.evaluate(() => performance.now()),
    call: (fn) => page.evaluate(`(${fn.toString()})(window.call)`) as never,
  }
}
