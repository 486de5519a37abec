/**
 * Protocol v1 (docs/protocol.md) as a call transport: a browser's WebSocket, seen through its
 * ClientChannel, in the call's terms. Caller audio is 16 kHz PCM16 already; `stop` and the socket's
 * close become `caller_left` (the close code tells a hang-up, 1000, from a client that broke the
 * protocol, 4400 or 1007, and from a dropped connection); events become protocol v1 events.
 */
import { pcmView, SAMPLE_RATE } from '../audio/index.js'
import type { CallerEvent, CallTransport, TransportInput } from '../pipeline/call/index.js'
import type { ClientChannel } from './client-channel.js'
import { CloseCode, events, type EndReason, type ServerEvent } from './protocol.js'

export class WebSocketTransport implements CallTransport {
  readonly name = 'websocket'

  constructor(private readonly channel: ClientChannel) {}

  get closed(): boolean {
    return this.channel.closed
  }

  attach(input: TransportInput): void {
    this.channel.handlers = {
      audio: (pcm) => input.audio(pcm, SAMPLE_RATE),
      control: (m) => {
        if (m.type === 'stop') input.frame({ type: 'caller_left', how: 'hangup' })
        else if (m.type === 'mute') input.frame({ type: 'mute', muted: m.muted })
      },
      closed: (code, reason) => {
        const how = code === CloseCode.protocolError || code === CloseCode.invalidPayload ? 'protocol_error' : code === 1000 ? 'hangup' : 'dropped'
        input.frame({ type: 'caller_left', how, code, reason })
      },
    }
  }

  writeAudio(frame: Int16Array): Promise<boolean> {
    // A view, no copy: uWS copies on send, ws keeps it until written, and a sent frame never changes.
    return this.channel.audio.write(pcmView(frame))
  }

  clearAudio(): void {
    this.channel.audio.flush()
    this.send(events.clear())
  }

  emit(e: CallerEvent): void {
    const event = toProtocol(e)
    if (event) this.send(event)
  }

  end(reason: EndReason): void {
    if (this.channel.closed) return
    this.send(events.status('ended'))
    this.channel.end(reason)
  }

  private send(e: ServerEvent): void {
    if (!this.channel.closed) this.channel.send(e)
  }
}

/** Null: nothing to tell a browser (keys the agent presses mean something only on a phone line). */
function toProtocol(e: CallerEvent): ServerEvent | null {
  switch (e.type) {
    case 'status':
      return events.status(e.status)
    case 'transcript':
      return events.transcript(e)
    case 'metrics':
      return events.metrics(e.turnId, e.metrics)
    case 'error':
      return events.error(e.code, e.message)
    case 'transfer':
      return events.transfer(e.target)
    case 'send_dtmf':
      return null
  }
}
