import { spawn } from 'node:child_process'
import dgram from 'node:dgram'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'

/**
 * Kamailio (Debian package `kamailio`) as a real registrar and proxy for the SIP tests: Digest on
 * REGISTER against a fixed list of users, bindings in memory, requests for a registered user
 * relayed to its contact. The configuration is test/fixtures/kamailio/kamailio.cfg.
 */

/** Where Debian installs it; OZAN_KAMAILIO overrides. */
export const KAMAILIO_PATH = process.env['OZAN_KAMAILIO'] ?? '/usr/sbin/kamailio'
const CONFIG = path.resolve(import.meta.dirname, '../fixtures/kamailio/kamailio.cfg')

/**
 * For tap's `skip` option, like skipWithoutChromium: outside CI a machine without kamailio skips the
 * registrar tests; in CI a missing kamailio is a broken image, so the test file fails instead.
 */
export function skipWithoutKamailio(): string | false {
  if (fs.existsSync(KAMAILIO_PATH)) return false
  if (process.env['CI'] === 'true') throw new Error(`kamailio is not installed at ${KAMAILIO_PATH} (Debian package kamailio) and CI=true`)
  return `kamailio is not installed at ${KAMAILIO_PATH} (Debian package kamailio)`
}

export interface KamailioUser {
  /** The digest (authentication) user name. */
  username: string
  password: string
}

export interface KamailioOptions {
  users: readonly KamailioUser[]
  /** How long to wait for it to answer its first OPTIONS. */
  startTimeoutMs?: number
}

export interface Kamailio {
  readonly host: '127.0.0.1'
  /** The one port it listens on, over UDP and TCP. */
  readonly port: number
  /** Everything it wrote (its log goes to stderr), for diagnostics. */
  output(): string
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and removes its directory; harmless twice. */
  stop(): Promise<void>
}

/** Kamailio strings are double-quoted with backslash escapes; test users need nothing fancier. */
function quoted(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`kamailio test users take printable ASCII only: ${JSON.stringify(value)}`)
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

function usersRoute(users: readonly KamailioUser[]): string {
  const lines = users.map((u) => `  if ($au == ${quoted(u.username)}) { $var(password) = ${quoted(u.password)}; }`)
  return ['# Written by test/helpers/kamailio.ts: the password of each digest user.', 'route[PASSWORD] {', '  $var(password) = "";', ...lines, '}', ''].join(
    '\n',
  )
}

/** A port free for both UDP and TCP on loopback (kamailio takes one port for both). */
async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const udp = dgram.createSocket('udp4')
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
    const { port } = udp.address()
    const tcp = net.createServer()
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false))
      tcp.listen(port, '127.0.0.1', () => resolve(true))
    })
    await new Promise<void>((resolve) => (ok ? tcp.close(() => resolve()) : resolve()))
    await new Promise<void>((resolve) => udp.close(() => resolve()))
    if (ok) return port
  }
  throw new Error('no port free for both UDP and TCP')
}

/** Sends OPTIONS over UDP until kamailio answers or the deadline passes. */
async function waitForAnswer(port: number, alive: () => boolean, deadline: number): Promise<void> {
  const socket = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const answered = new Promise<void>((resolve) => socket.once('message', () => resolve()))
  try {
    for (let i = 0; Date.now() < deadline; i++) {
      if (!alive()) throw new Error('kamailio exited while starting')
      const local = socket.address().port
      const probe =
        `OPTIONS sip:127.0.0.1:${port} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${local};branch=z9hG4bKprobe${i};rport\r\nMax-Forwards: 70\r\n` +
        `From: <sip:probe@127.0.0.1>;tag=probe\r\nTo: <sip:127.0.0.1>\r\nCall-ID: probe-${i}@127.0.0.1\r\nCSeq: ${i + 1} OPTIONS\r\nContent-Length: 0\r\n\r\n`
      socket.send(probe, port, '127.0.0.1')
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 100))
      if ((await Promise.race([answered, timeout])) !== 'timeout') return
    }
    throw new Error('kamailio did not answer OPTIONS in time')
  } finally {
    socket.close()
  }
}

/** Resolves once a TCP connect to the port is refused: nothing of kamailio listens any more. */
async function refusedBy(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port })
      socket.once('connect', () => (socket.destroy(), resolve(false)))
      socket.once('error', () => resolve(true))
    })
    if (refused) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Starts kamailio in the foreground on a free loopback port; it is stopped at the test's teardown. */
export async function startKamailio(t: Test, o: KamailioOptions): Promise<Kamailio> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-kamailio-'))
  fs.copyFileSync(CONFIG, path.join(dir, 'kamailio.cfg'))
  fs.writeFileSync(path.join(dir, 'users.cfg'), usersRoute(o.users))
  const port = await freePort()
  // -DD: no daemon (the creator stays our child); -E: log to stderr; -w/-Y: a working and runtime
  // directory of its own, so nothing under / or /run is needed; -n 1: one worker per socket.
  const args = ['-DD', '-E', '-f', path.join(dir, 'kamailio.cfg'), '-l', `udp:127.0.0.1:${port}`, '-l', `tcp:127.0.0.1:${port}`]
  args.push('-w', dir, '-Y', dir, '-n', '1', '-N', '1', '-m', '32', '-M', '4')
  // Its own process group: stop() signals the workers with the creator.
  const child = spawn(KAMAILIO_PATH, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64_000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  let spawnFailed = false
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.once('error', (err) => {
    spawnFailed = true
    keep(Buffer.from(`spawn failed: ${err.message}\n`))
  })
  const alive = () => !spawnFailed && child.exitCode === null && child.signalCode === null
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name)
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (alive()) {
        signal('SIGTERM')
        const killed = setTimeout(() => signal('SIGKILL'), 5_000)
        await exited
        clearTimeout(killed)
        // The creator is gone; its workers may hold the sockets a moment longer.
        await refusedBy(port, Date.now() + 5_000)
      }
      fs.rmSync(dir, { recursive: true, force: true })
    })())
  t.teardown(stop)
  try {
    await waitForAnswer(port, alive, Date.now() + (o.startTimeoutMs ?? 10_000))
  } catch (err) {
    await stop()
    throw new Error(`${(err as Error).message}\n${output.slice(-4_000)}`)
  }
  return { host: '127.0.0.1', port, output: () => output, stop }
}
