// OZAN_SIP_SOURCE_RATE / OZAN_SIP_SOURCE_BURST reach the running SIP listener (issue #21 item 10):
// a source over its budget is answered 503 with Retry-After once, then dropped.
import dgram from 'node:dgram'
import t from 'tap'
import { loadConfig } from '../../core/index.js'
import { phoneScene } from './scene.js'

const options = (n: number, port: number, from: number) =>
  Buffer.from(
    `OPTIONS sip:127.0.0.1:${port} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${from};branch=z9hG4bKlimit${n}\r\nMax-Forwards: 70\r\nFrom: <sip:probe@127.0.0.1>;tag=p${n}\r\nTo: <sip:127.0.0.1>\r\nCall-ID: limit-${n}@test\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`,
  )

t.test('the variables are read and bounded', async (t) => {
  t.same(loadConfig({}).sip.sourceLimits, { perSecond: 100, burst: 200 })
  t.same(loadConfig({ OZAN_SIP_SOURCE_RATE: '1000', OZAN_SIP_SOURCE_BURST: '50' }).sip.sourceLimits, { perSecond: 1000, burst: 50 })
  t.throws(() => loadConfig({ OZAN_SIP_SOURCE_RATE: '0' }), /OZAN_SIP_SOURCE_RATE/)
})

t.test('a source over a burst of 2 gets 503 with Retry-After for its third message, then nothing', async (t) => {
  const s = await phoneScene(t, { OZAN_SIP_SOURCE_RATE: '1', OZAN_SIP_SOURCE_BURST: '2' })
  const sock = dgram.createSocket('udp4')
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()))
  t.teardown(() => sock.close())
  const answers: string[] = []
  sock.on('message', (m) => answers.push(m.toString('utf8').split('\r\n')[0]!))
  for (let n = 0; n < 6; n++) sock.send(options(n, s.telephony.port, sock.address().port), s.telephony.port, '127.0.0.1')
  await new Promise((r) => setTimeout(r, 500))
  t.same(answers.sort(), ['SIP/2.0 200 OK', 'SIP/2.0 200 OK', 'SIP/2.0 503 Service Unavailable'], 'two admitted, one told, the rest dropped')
})
