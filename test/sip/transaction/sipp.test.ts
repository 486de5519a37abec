// The transaction layer against a real SIP peer: SIPp over UDP on loopback (Debian package sip-tester).
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SipHeaders, type SipMessage, SipRequest, SipUri } from '../../../sip/index.js'
import { newBranch, responseTo, type TransactionEvent } from '../../../sip/transaction/index.js'
import { udpEndpoint } from './udp.js'

const SCENARIOS = join(import.meta.dirname, 'sipp')

async function freeUdpPort(): Promise<number> {
  const probe = createSocket('udp4')
  await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Runs SIPp for one call; resolves with its exit code (0: every call succeeded) and its error log. */
async function sipp(args: string[]): Promise<{ code: number | null; output: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'ozan-sipp-'))
  const child = spawn('sipp', [...args, '-m', '1', '-i', '127.0.0.1', '-nostdin', '-timeout', '20s', '-timeout_error', '-trace_err'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject) // ENOENT: SIPp is not installed (scripts/system-packages.txt: sip-tester)
    child.on('exit', resolve)
  })
  for (const name of await readdir(cwd)) if (name.endsWith('_errors.log')) output += await readFile(join(cwd, name), 'utf8')
  await rm(cwd, { recursive: true, force: true })
  return { code, output }
}

const label = (m: SipMessage) => (m.kind === 'request' ? m.method : String(m.status))

t.test('SIPp as UAC: our server transactions answer INVITE (100 Trying, 180, 200) and BYE, and pass its ACK to the TU', async (t) => {
  const events: string[] = []
  const endpoint = await udpEndpoint((event: TransactionEvent) => {
    events.push(event.type === 'request' || event.type === 'ack' ? `${event.type} ${event.request.method}` : event.type)
    if (event.type !== 'request') return
    const { request, transaction } = event
    if (request.method === 'INVITE') {
      // Answer after the 200 ms the transaction waits before its own 100 Trying (§17.2.1).
      setTimeout(() => {
        endpoint.runner.respond(transaction, responseTo(request, 180, 'Ringing', { toTag: 'ozan1' }))
        const contact: Array<[string, string]> = [['Contact', `<sip:ozan@127.0.0.1:${endpoint.port}>`]]
        endpoint.runner.respond(transaction, responseTo(request, 200, 'OK', { toTag: 'ozan1', headers: contact }))
      }, 300)
    } else endpoint.runner.respond(transaction, responseTo(request, 200, 'OK', { toTag: 'ozan1' }))
  })
  const port = await freeUdpPort()
  const result = await sipp(['-sn', 'uac', `127.0.0.1:${endpoint.port}`, '-p', String(port), '-d', '100'])
  await endpoint.close()
  t.equal(result.code, 0, 'SIPp completed the call', { diagnostic: true, output: result.output.slice(-1500) })
  t.same(
    events.filter((e) => e !== 'terminated'),
    ['request INVITE', 'ack ACK', 'request BYE'],
  )
  t.equal(endpoint.malformed, 0)
  const sent = endpoint.sent.map(label)
  t.same(sent.slice(0, 3), ['100', '180', '200'], 'the 100 Trying went out before the TU answered at 300 ms')
  t.equal(sent.at(-1), '200', 'the BYE answered')
})

t.test('SIPp as UAS: our INVITE client transaction retransmits while unanswered and ACKs the 486 itself', async (t) => {
  const port = await freeUdpPort()
  const running = sipp(['-sf', join(SCENARIOS, 'busy-after-pause.xml'), '-p', String(port)])
  await new Promise((resolve) => setTimeout(resolve, 300)) // SIPp binds its socket
  const events: TransactionEvent[] = []
  const endpoint = await udpEndpoint((event) => events.push(event), { timers: { t1Ms: 100, t2Ms: 4_000, t4Ms: 5_000 } })
  const invite = new SipRequest(
    'INVITE',
    new SipUri({ user: 'sipp', host: '127.0.0.1', port }),
    new SipHeaders([
      ['Via', `SIP/2.0/UDP 127.0.0.1:${endpoint.port};branch=${newBranch()}`],
      ['Max-Forwards', '70'],
      ['From', `<sip:ozan@127.0.0.1:${endpoint.port}>;tag=caller1`],
      ['To', `<sip:sipp@127.0.0.1:${port}>`],
      ['Call-ID', `${newBranch()}@127.0.0.1`],
      ['CSeq', '1 INVITE'],
      ['Contact', `<sip:ozan@127.0.0.1:${endpoint.port}>`],
    ]),
  )
  const id = endpoint.runner.sendRequest(invite, { transport: 'UDP', host: '127.0.0.1', port })
  const result = await running
  await endpoint.close()
  t.equal(result.code, 0, 'SIPp got our ACK', { diagnostic: true, output: result.output.slice(-1500) })
  t.match(
    events.filter((e) => e.type === 'response'),
    [{ type: 'response', transaction: id, response: { status: 486 } }],
  )
  t.equal(events.filter((e) => e.type === 'response').length, 1, 'SIPp retransmitted nothing the TU had to see')
  const sent = endpoint.sent.map(label)
  // 700 ms unanswered at T1 = 100 ms: sends at 0, 100, 300 (and 700, racing the 486).
  t.ok(sent.filter((m) => m === 'INVITE').length >= 3, `Timer A retransmitted: ${sent.join(' ')}`)
  t.equal(sent.filter((m) => m === 'ACK').length, 1)
})
