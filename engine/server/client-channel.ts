/**
 * One web call's socket seen through protocol v1: parses what the client sends, answers malformed
 * input with `error` events (never a throw, never a stuck session), closes with 4400 after
 * MAX_CONSECUTIVE_ERRORS in a row, and writes events and audio (audio through the AudioWriter).
 * The session (pipeline) plugs in through `handlers`.
 */
import { AudioWriter, type AudioWriterOptions } from './audio-writer.js'
import {
  CloseCode,
  CloseReason,
  MAX_CONSECUTIVE_ERRORS,
  encodeEvent,
  events,
  parseClientMessage,
  type ControlMessage,
  type EndReason,
  type ServerEvent,
} from './protocol.js'
import type { Conn, SendResult } from './socket.js'

export interface ChannelHandlers {
  /** Caller audio, 16 kHz PCM16 samples; not called while the caller is muted. */
  audio(pcm: Int16Array): void
  /** mute and stop (ping is answered here). The default stop handler ends the call. */
  control(message: ControlMessage): void
  closed(code: number, reason: string): void
}

export class ClientChannel {
  readonly audio: AudioWriter
  /** The caller muted their microphone: incoming audio is discarded until unmuted. */
  micMuted = false
  private errors = 0
  private ended = false
  handlers: ChannelHandlers = {
    audio: () => {},
    control: (m) => {
      if (m.type === 'stop') this.end('client_stop')
    },
    closed: () => {},
  }

  constructor(
    private readonly conn: Conn,
    readonly callId: string,
    writer?: Partial<AudioWriterOptions>,
  ) {
    this.audio = new AudioWriter(conn, writer)
    conn.onMessage((data, isBinary) => this.receive(data, isBinary))
    conn.onClose((code, reason) => {
      this.ended = true
      this.handlers.closed(code, reason)
    })
  }

  get closed(): boolean {
    return this.conn.closed
  }

  send(event: ServerEvent): SendResult {
    return this.conn.send(encodeEvent(event))
  }

  /** Sends `ended`, then closes: 1000 for a normal end, or the given close code. */
  end(reason: EndReason, code: number = CloseCode.normal): void {
    if (this.ended) return
    this.ended = true
    this.audio.flush()
    this.send(events.ended(reason))
    this.conn.close(code, code === CloseCode.normal ? 'normal' : (CloseReason[code as keyof typeof CloseReason] ?? reason))
  }

  private receive(data: ArrayBuffer | string, isBinary: boolean): void {
    if (this.ended) return
    const m = parseClientMessage(data, isBinary)
    if (m.kind === 'error') {
      this.send(events.error(m.code, m.message))
      if (++this.errors >= MAX_CONSECUTIVE_ERRORS) this.end('protocol_error', CloseCode.protocolError)
      return
    }
    this.errors = 0
    if (m.kind === 'audio') {
      if (!this.micMuted) this.guard(() => this.handlers.audio(m.pcm))
      return
    }
    const msg = m.message
    if (msg.type === 'ping') {
      this.send(events.pong(msg.id))
      return
    }
    if (msg.type === 'mute') this.micMuted = msg.muted
    this.guard(() => this.handlers.control(msg))
  }

  /** A session bug must end this call cleanly, not the process. */
  private guard(fn: () => void): void {
    try {
      fn()
    } catch {
      this.send(events.error('internal_error', 'the call failed'))
      this.end('error', CloseCode.internalError)
    }
  }
}
