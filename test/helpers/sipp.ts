import { execFile, spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * SIPp (Debian sip-tester) as the far end of phone-call tests: scenarios written by the test, RTP
 * played from a pcap the test builds (writeRtpPcap), each run in its own temp directory.
 */

let available: Promise<boolean> | undefined

export function sippAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => execFile('sipp', ['-v'], (err, stdout) => resolve(!err || /SIPp v/.test(String(stdout)))))
  return available
}

/** For tap's `skip`: outside CI a machine without SIPp skips; with CI=true it is a broken image and fails. */
export async function skipWithoutSipp(): Promise<string | false> {
  if (await sippAvailable()) return false
  if (process.env['CI'] === 'true') throw new Error('SIPp is not installed (scripts/system-packages.txt: sip-tester) and CI=true')
  return 'SIPp (sip-tester) is not installed'
}

export async function freeUdpPort(): Promise<number> {
  const probe = createSocket('udp4')
  await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

export interface SippRun {
  code: number | null
  /** stdout, stderr and the error log: for the diagnostic when a run fails. */
  output: string
}

/**
 * Runs one SIPp call of `scenario` (XML text) against `target` (host:port). `files` are written
 * beside the scenario (pcaps it plays). Resolves when SIPp exits: 0 means every step passed.
 */
export async function runSipp(o: {
  scenario: string
  /** host:port to call; left out for a scenario that waits for our INVITE (SIPp as the callee, on `port`). */
  target?: string
  port?: number
  args?: string[]
  files?: Record<string, Buffer>
  timeoutS?: number
}): Promise<SippRun> {
  const cwd = await mkdtemp(join(tmpdir(), 'ozan-sipp-'))
  await writeFile(join(cwd, 'scenario.xml'), o.scenario)
  for (const [name, bytes] of Object.entries(o.files ?? {})) await writeFile(join(cwd, name), bytes)
  const port = o.port ?? (await freeUdpPort())
  const mediaPort = await freeUdpPort()
  const args = [
    '-sf',
    'scenario.xml',
    ...(o.target ? [o.target] : []),
    '-m',
    '1',
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mp',
    String(mediaPort),
    '-nostdin',
    '-timeout',
    `${o.timeoutS ?? 30}s`,
    '-timeout_error',
    '-trace_err',
    ...(process.env['OZAN_KEEP_SIPP'] === '1' ? ['-trace_msg'] : []),
    ...(o.args ?? []),
  ]
  const child = spawn('sipp', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', resolve)
  })
  for (const name of await readdir(cwd)) if (name.endsWith('_errors.log')) output += await readFile(join(cwd, name), 'utf8')
  // OZAN_KEEP_SIPP=1 keeps the directory with -trace_msg's message log, for debugging a scenario.
  if (process.env['OZAN_KEEP_SIPP'] === '1') output += `\nkept: ${cwd}`
  else await rm(cwd, { recursive: true, force: true })
  return { code, output: output.slice(-3000) }
}

/** One RTP packet of a pcap: when it goes (ms from the first), and what it carries. */
export interface PcapRtpPacket {
  atMs: number
  payloadType: number
  marker: boolean
  timestamp: number
  payload: Uint8Array
}

/**
 * A pcap (Ethernet, IPv4, UDP) of RTP packets, one per 20 ms frame of G.711 bytes, timed 20 ms
 * apart: what SIPp's play_pcap_audio sends to the far end's media port (it rewrites addresses and
 * ports, keeps payload and timing).
 */
export function writeRtpPcap(frames: readonly Uint8Array[], payloadType: number): Buffer {
  return writeRtpPcapPackets(frames.map((payload, i) => ({ atMs: i * 20, payloadType, marker: i === 0, timestamp: i * 160, payload })))
}

/** A pcap of any RTP packets (audio and RFC 4733 events), in the order and at the times given. */
export function writeRtpPcapPackets(packets: readonly PcapRtpPacket[]): Buffer {
  const global = Buffer.alloc(24)
  global.writeUInt32LE(0xa1b2c3d4, 0)
  global.writeUInt16LE(2, 4)
  global.writeUInt16LE(4, 6)
  global.writeUInt32LE(65535, 16)
  global.writeUInt32LE(1, 20) // LINKTYPE_ETHERNET
  const records: Buffer[] = [global]
  const ssrc = 0x0ca11e12
  packets.forEach((p, i) => {
    const rtp = Buffer.alloc(12 + p.payload.length)
    rtp[0] = 0x80
    rtp[1] = (p.marker ? 0x80 : 0) | p.payloadType
    rtp.writeUInt16BE((1000 + i) & 0xffff, 2)
    rtp.writeUInt32BE(p.timestamp >>> 0, 4)
    rtp.writeUInt32BE(ssrc, 8)
    rtp.set(p.payload, 12)
    const udp = Buffer.alloc(8)
    udp.writeUInt16BE(6000, 0)
    udp.writeUInt16BE(6000, 2)
    udp.writeUInt16BE(8 + rtp.length, 4)
    const ip = Buffer.alloc(20)
    ip[0] = 0x45
    ip.writeUInt16BE(20 + 8 + rtp.length, 2)
    ip[8] = 64
    ip[9] = 17
    ip.set([127, 0, 0, 1], 12)
    ip.set([127, 0, 0, 1], 16)
    let sum = 0
    for (let k = 0; k < 20; k += 2) sum += ip.readUInt16BE(k)
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16)
    ip.writeUInt16BE(~sum & 0xffff, 10)
    const eth = Buffer.alloc(14)
    eth.writeUInt16BE(0x0800, 12)
    const packet = Buffer.concat([eth, ip, udp, rtp])
    const header = Buffer.alloc(16)
    const atUs = Math.round(p.atMs * 1000)
    header.writeUInt32LE(Math.floor(atUs / 1e6), 0)
    header.writeUInt32LE(atUs % 1e6, 4)
    header.writeUInt32LE(packet.length, 8)
    header.writeUInt32LE(packet.length, 12)
    records.push(header, packet)
  })
  return Buffer.concat(records)
}
