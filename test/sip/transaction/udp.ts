// A UDP transport for tests with real peers: one socket on loopback, parseSipMessage in, serialize out.
import { createSocket } from 'node:dgram'
import { parseSipMessage, type SipMessage } from '../../../sip/index.js'
import { type TransactionEvent, TransactionRunner, type TransactionRunnerOptions } from '../../../sip/transaction/index.js'

export interface UdpEndpoint {
  readonly runner: TransactionRunner
  readonly port: number
  /** Every message handed to the socket, in order. */
  readonly sent: readonly SipMessage[]
  /** Datagrams that did not parse. */
  readonly malformed: number
  close(): Promise<void>
}

export async function udpEndpoint(onEvent: (event: TransactionEvent) => void, layer?: TransactionRunnerOptions['layer']): Promise<UdpEndpoint> {
  const socket = createSocket('udp4')
  let malformed = 0
  const sent: SipMessage[] = []
  const runner = new TransactionRunner({
    transport: {
      send: (message, target) => {
        sent.push(message)
        return new Promise<void>((resolve, reject) =>
          socket.send(message.serialize(), target.port, target.host, (error) => (error ? reject(error) : resolve())),
        )
      },
    },
    onEvent,
    ...(layer ? { layer } : {}),
  })
  socket.on('message', (bytes, from) => {
    const result = parseSipMessage(bytes)
    if (result.ok) runner.receive(result.message, { transport: 'UDP', host: from.address, port: from.port })
    else malformed++
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  return {
    runner,
    port: socket.address().port,
    sent,
    get malformed() {
      return malformed
    },
    close: () =>
      new Promise<void>((resolve) => {
        runner.close()
        socket.close(() => resolve())
      }),
  }
}
