// Where a server transaction sends responses (RFC 3261 §18.2.2, RFC 3581 §4).
import t from 'tap'
import { Via } from '../../../sip/index.js'
import { responseTarget } from '../../../sip/transaction/index.js'

const source = { transport: 'UDP', host: '198.51.100.7', port: 40123 }
const via = (text: string) => Via.parse(text)!

t.test('over UDP a response MUST go to the source address and the sent-by port (5060 by default)', async (t) => {
  t.same(responseTarget(via('SIP/2.0/UDP pc33.example:5066;branch=z9hG4bK1'), source), { transport: 'UDP', host: '198.51.100.7', port: 5066 })
  t.same(responseTarget(via('SIP/2.0/UDP pc33.example;branch=z9hG4bK1'), source), { transport: 'UDP', host: '198.51.100.7', port: 5060 })
})

t.test('with rport the response MUST go back to the source port (RFC 3581 §4)', async (t) => {
  t.same(responseTarget(via('SIP/2.0/UDP 10.0.0.2:5060;rport;branch=z9hG4bK1'), source), source)
})

t.test('with maddr the response MUST go to it, at the sent-by port', async (t) => {
  t.same(responseTarget(via('SIP/2.0/UDP pc33.example:5070;maddr=239.255.255.1;branch=z9hG4bK1'), source), {
    transport: 'UDP',
    host: '239.255.255.1',
    port: 5070,
  })
})

t.test('over a reliable transport the response MUST use the connection of the request', async (t) => {
  const tcp = { transport: 'TCP', host: '198.51.100.7', port: 40123, connectionId: 'conn-9' }
  t.same(responseTarget(via('SIP/2.0/TCP pc33.example;branch=z9hG4bK1'), tcp), { ...tcp, port: 5060 }, 'the port is where to reconnect if it closed')
  t.same(responseTarget(via('SIP/2.0/TLS pc33.example;branch=z9hG4bK1'), { ...tcp, transport: 'TLS' }), { ...tcp, transport: 'TLS', port: 5061 })
})
