import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { encodeWav } from '../../engine/audio/wav.js'

/**
 * Headless Debian Chromium (scripts/system-packages.txt) for the browser tests: the web client
 * library and the test-call page. playwright-core drives it over CDP and downloads nothing.
 */

/** Where Debian installs it; OZAN_CHROMIUM overrides (another build, another path). */
export const CHROMIUM_PATH = process.env['OZAN_CHROMIUM'] ?? '/usr/bin/chromium'

/**
 * For tap's `skip` option, like skipWithoutEspeak: outside CI a machine without Chromium skips the
 * browser tests; in CI a missing Chromium is a broken image, so the test file fails instead.
 */
export function skipWithoutChromium(): string | false {
  if (fs.existsSync(CHROMIUM_PATH)) return false
  if (process.env['CI'] === 'true') throw new Error(`chromium is not installed at ${CHROMIUM_PATH} (scripts/system-packages.txt) and CI=true`)
  return `chromium is not installed at ${CHROMIUM_PATH}`
}

export interface ChromiumOptions {
  /**
   * A WAV file Chromium's fake microphone plays, looped from the start for as long as the page
   * captures (so pad it with the silence that should follow the utterance). Without it the fake
   * device plays Chromium's own beeps.
   */
  fakeMicWav?: string
  /** getUserMedia is refused (NotAllowedError), as when the user blocks the microphone. */
  denyMic?: boolean
  /** No fake capture device: on a machine without a sound card getUserMedia finds none (NotFoundError). */
  noMic?: boolean
  /** More command-line switches. */
  args?: string[]
}

export interface LaunchedChromium {
  /** The one browser context (a persistent one over a fresh profile directory). */
  context: BrowserContext
  /** A new tab; its console errors and uncaught exceptions are collected in `pageErrors`. */
  newPage(): Promise<Page>
  /** Messages of console.error and uncaught exceptions in any page opened with newPage. */
  pageErrors: string[]
  /** Closes the browser and removes its profile directory; harmless twice. */
  close(): Promise<void>
}

/** Switches that keep a test browser quiet, offline and reproducible. */
const BASE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Audio starts without a click: the tests have no user gesture to give.
  '--autoplay-policy=no-user-gesture-required',
]

/** Headless Chromium over a fresh profile; callers should run skipWithoutChromium first. */
export async function launchChromium(o: ChromiumOptions = {}): Promise<LaunchedChromium> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-chromium-'))
  const args = [...BASE_ARGS]
  // 'deny' makes the fake permission UI refuse every request instead of accepting it.
  args.push(o.denyMic ? '--use-fake-ui-for-media-stream=deny' : '--use-fake-ui-for-media-stream')
  if (!o.noMic) args.push('--use-fake-device-for-media-stream')
  if (o.fakeMicWav && !o.noMic) args.push(`--use-file-for-fake-audio-capture=${o.fakeMicWav}`)
  args.push(...(o.args ?? []))
  let context: BrowserContext
  try {
    // launchPersistentContext passes --user-data-dir itself (launch() refuses it among args).
    context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args, timeout: 30_000 })
  } catch (err) {
    fs.rmSync(userDataDir, { recursive: true, force: true })
    throw err
  }
  const pageErrors: string[] = []
  let closed: Promise<void> | undefined
  return {
    context,
    pageErrors,
    async newPage() {
      const page = await context.newPage()
      page.on('pageerror', (err) => pageErrors.push(String(err)))
      page.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())))
      return page
    },
    close() {
      closed ??= context
        .close()
        .catch(() => undefined)
        .then(() => fs.rmSync(userDataDir, { recursive: true, force: true }))
      return closed
    },
  }
}

/**
 * Writes `pcm` (mono PCM16) as a WAV for `fakeMicWav` and returns its path, in a fresh temporary
 * directory that the caller may remove. Chromium reads 16-bit PCM WAVs at any rate.
 */
export function writeFakeMicWav(pcm: Int16Array, sampleRateHz: number, name = 'mic.wav'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-mic-'))
  const file = path.join(dir, name)
  fs.writeFileSync(file, encodeWav(pcm, sampleRateHz))
  return file
}
