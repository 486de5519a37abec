import net from 'node:net'
import type { AddressInfo } from 'node:net'

export interface ReceivedMail {
  from: string
  to: string[]
  data: string
}

/**
 * A minimal SMTP server (RFC 5321: EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP,
 * QUIT). `reject` makes it answer MAIL FROM with a permanent failure, to test send errors.
 */
export async function startSmtpServer() {
  const received: ReceivedMail[] = []
  const state = { reject: false }
  const server = net.createServer((socket) => {
    let buffer = ''
    let inData = false
    let mail: ReceivedMail = { from: '', to: [], data: '' }
    const reply = (line: string) => socket.write(`${line}\r\n`)
    reply('220 test-smtp ready')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      let idx
      while ((idx = buffer.indexOf('\r\n')) !== -1) {
        const line = buffer.slice(0, idx)
        buffer = buffer.slice(idx + 2)
        if (inData) {
          if (line === '.') {
            inData = false
            received.push(mail)
            mail = { from: '', to: [], data: '' }
            reply('250 2.0.0 queued')
          } else mail.data += (line.startsWith('..') ? line.slice(1) : line) + '\n'
          continue
        }
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO') socket.write('250-test-smtp\r\n250 8BITMIME\r\n')
        else if (verb === 'HELO') reply('250 test-smtp')
        else if (verb === 'MAIL') {
          if (state.reject) reply('550 5.7.1 sender rejected')
          else {
            mail.from = line.slice(10).trim()
            reply('250 2.1.0 ok')
          }
        } else if (verb === 'RCPT') {
          mail.to.push(line.slice(8).trim())
          reply('250 2.1.5 ok')
        } else if (verb === 'DATA') {
          inData = true
          reply('354 end with <CRLF>.<CRLF>')
        } else if (verb === 'RSET') {
          mail = { from: '', to: [], data: '' }
          reply('250 ok')
        } else if (verb === 'NOOP') reply('250 ok')
        else if (verb === 'QUIT') {
          reply('221 bye')
          socket.end()
        } else reply('502 5.5.2 command not recognized')
      }
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as AddressInfo).port,
    received,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}
