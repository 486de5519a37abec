/**
 * The engine's output jitter as it leaves the engine: tcpdump captures the engine's side of every
 * call socket on loopback during a capacity window, and each agent audio frame is stamped with the
 * kernel's timestamp of the TCP segment that completed it.
 *
 * Why beside the callers' own figure: on a 2-core machine the callers run in one process with
 * every stand-in provider, on the one core the engine does not have. At 50 calls and more, that
 * process's event loop stalls (GC, bursts of stand-in work) delay when a caller *reads* frames
 * the engine sent on time, so the caller-side jitter measures the bench as much as the engine
 * (measured: at 50 calls, caller-side p99 9.1 ms while the same frames on the wire had 4.4 ms).
 *
 * Needs tcpdump (scripts/system-packages.txt) and the right to capture (root); without them a
 * capacity step is marked invalid (verdict.ts), unless the run chose the callers' figure (--no-wire).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { FRAME_BYTES, stretchJitter } from './caller.js'

export interface WireCapture {
  /** Stops tcpdump and returns each socket's agent-audio frames (arrival ms on the capture's clock). */
  stop(): Promise<Map<number, number[]>>
}

export function tcpdumpPath(): string | null {
  for (const p of ['/usr/bin/tcpdump', '/usr/sbin/tcpdump', '/sbin/tcpdump']) if (fs.existsSync(p)) return p
  return null
}

/** Why the wire cannot be captured here (what to do about it), or null when it can. */
export function wireCaptureProblem(): string | null {
  if (tcpdumpPath() === null)
    return "tcpdump is not installed (scripts/system-packages.txt: apt-get install -y tcpdump), or pass --no-wire to judge by the callers' clock"
  if (process.getuid?.() !== 0) return "capturing on loopback needs root: run the bench as root, or pass --no-wire to judge by the callers' clock"
  return null
}

/**
 * tcpdump on loopback writing what `filter` matches into `file`; resolves once it listens.
 * `stop()` ends it and resolves with what it said on stderr (its packet counts).
 */
export async function startTcpdump(filter: string, file: string, extraArgs: string[] = []): Promise<{ stop(): Promise<string> }> {
  const bin = tcpdumpPath()
  if (!bin) throw new Error('tcpdump is not installed')
  // -U: write each packet as it comes, so a stop loses nothing; -s 0: whole packets.
  const child: ChildProcess = spawn(bin, ['-i', 'lo', '-s', '0', ...extraArgs, '-U', '-n', '-w', file, filter], { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start: ${err.trim()}`)), 5000)
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      err += s
      if (err.includes('listening on')) clearTimeout(timer), resolve()
    })
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`tcpdump exited (${code}): ${err.trim()}`))))
    child.once('error', (e) => (clearTimeout(timer), reject(e)))
  })
  return {
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGINT')
      await exited
      return err
    },
  }
}

/** Starts capturing what `port` sends on loopback into `file`; resolves once tcpdump listens. */
export async function startWireCapture(port: number, file: string): Promise<WireCapture> {
  const tcpdump = await startTcpdump(`tcp and src port ${port}`, file)
  return {
    async stop() {
      await tcpdump.stop()
      const frames = audioFramesFromPcap(fs.readFileSync(file))
      if (!process.env.BENCH_WIRE_KEEP) fs.rmSync(file, { force: true })
      return frames
    },
  }
}

/**
 * Agent audio frames per destination port from a pcap of server → client WebSocket traffic: the
 * byte stream of each socket is parsed frame by frame (server frames are unmasked), and a binary
 * frame of FRAME_BYTES counts at the timestamp of the segment that completed it. A socket whose
 * first captured segment does not start a frame (the capture began mid-frame) is read from its
 * next segment that does.
 *
 * The stream follows TCP sequence numbers: a retransmitted segment (loopback does retransmit: tail
 * loss probes fire when the receiving process is slow to be scheduled) carries bytes already
 * counted, and counting its frames again shifted every later frame of that socket by one and read
 * as 20 ms of jitter. Bytes already seen are skipped; a hole (the capture lost a segment) drops the
 * socket's partial frame and resumes at the next segment that starts a frame.
 */
export function audioFramesFromPcap(b: Buffer): Map<number, number[]> {
  const out = new Map<number, number[]>()
  const pending = new Map<number, Buffer | null>()
  /** The sequence number after the last byte taken, per socket. */
  const next = new Map<number, number>()
  for (const { at: t, pkt, ipAt } of ipv4Packets(b)) {
    const tcp = ipAt + (pkt[ipAt]! & 15) * 4
    const ipEnd = ipAt + pkt.readUInt16BE(ipAt + 2)
    if (pkt.length < tcp + 20) continue
    const dport = pkt.readUInt16BE(tcp + 2)
    const seq = pkt.readUInt32BE(tcp + 4)
    let data = pkt.subarray(tcp + (pkt[tcp + 12]! >> 4) * 4, ipEnd)
    if (data.length === 0) continue
    const end = (seq + data.length) >>> 0
    const expected = next.get(dport)
    if (expected !== undefined) {
      // Signed distance modulo 2^32: sequence numbers wrap.
      const ahead = (seq - expected) | 0
      if (ahead + data.length <= 0) continue // all of it seen already
      if (ahead < 0) data = data.subarray(-ahead)
      else if (ahead > 0) pending.delete(dport) // a hole: resync at a segment that starts a frame
    }
    next.set(dport, end)
    let carry = pending.get(dport)
    if (carry === undefined) {
      // First segment seen on this socket: usable only if it starts a frame.
      if (data[0] !== 0x81 && data[0] !== 0x82) continue
      carry = null
    }
    let buf = carry ? Buffer.concat([carry, data]) : data
    const frames = out.get(dport) ?? []
    for (;;) {
      const f = frameAt(buf)
      if (f === null) break
      if (f.opcode === 2 && f.payload === FRAME_BYTES) frames.push(t)
      buf = buf.subarray(f.size)
    }
    out.set(dport, frames)
    pending.set(dport, buf.length ? Buffer.from(buf) : null)
  }
  return out
}

/**
 * The IPv4 packets of a little-endian pcap (Ethernet, as tcpdump writes for lo; Linux cooked v1/v2),
 * each with its capture time in ms and where its IP header starts.
 */
export function* ipv4Packets(b: Buffer): Generator<{ at: number; pkt: Buffer; ipAt: number }> {
  if (b.length < 24) return
  const magic = b.readUInt32LE(0)
  const nanos = magic === 0xa1b23c4d
  if (magic !== 0xa1b2c3d4 && !nanos) throw new Error('not a little-endian pcap file')
  const link = b.readUInt32LE(20)
  const ipAt = link === 1 ? 14 : link === 113 ? 16 : link === 276 ? 20 : -1
  if (ipAt < 0) throw new Error(`unsupported pcap link type ${link}`)
  for (let off = 24; off + 16 <= b.length; ) {
    const at = b.readUInt32LE(off) * 1000 + b.readUInt32LE(off + 4) / (nanos ? 1e6 : 1e3)
    const len = b.readUInt32LE(off + 8)
    const pkt = b.subarray(off + 16, off + 16 + len)
    off += 16 + len
    if (pkt.length >= ipAt + 20 && pkt[ipAt]! >> 4 === 4) yield { at, pkt, ipAt }
  }
}

/** The frame at the start of `buf`, or null if it is not all there yet. */
function frameAt(buf: Buffer): { opcode: number; payload: number; size: number } | null {
  if (buf.length < 2) return null
  const opcode = buf[0]! & 0x0f
  let payload = buf[1]! & 0x7f
  let head = 2
  if (payload === 126) {
    if (buf.length < 4) return null
    payload = buf.readUInt16BE(2)
    head = 4
  } else if (payload === 127) {
    if (buf.length < 10) return null
    payload = Number(buf.readBigUInt64BE(2))
    head = 10
  }
  return buf.length < head + payload ? null : { opcode, payload, size: head + payload }
}

/** Jitter of every socket's frames, as the callers' figure is computed (caller.ts stretchJitter). */
export function wireJitter(frames: Map<number, number[]>): number[] {
  return [...frames.values()].flatMap((ats) =>
    stretchJitter(
      ats.map((at) => ({ at, bytes: FRAME_BYTES })),
      -Infinity,
      Infinity,
    ),
  )
}
