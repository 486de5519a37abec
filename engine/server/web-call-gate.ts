/**
 * The ConnectionHandler of the web-call endpoint: admits a socket only with a genuine, unexpired,
 * unused web-call token of this engine's audience and a free slot under the organization's
 * live-call cap, then hands the session a ClientChannel. Every refusal is a close code
 * (docs/protocol.md, "Close codes").
 */
import { randomUUID } from 'node:crypto'
import type { LiveCalls, WebCallClaims, WebCallTokens } from '../calls/index.js'
import { ClientChannel } from './client-channel.js'
import { CloseCode, CloseReason, PROTOCOL_VERSION, events } from './protocol.js'
import type { Authorization, ConnectionHandler, UpgradeRequest } from './socket.js'
import type { AudioWriterOptions } from './audio-writer.js'

export interface WebCall {
  callId: string
  claims: WebCallClaims
  variables: Record<string, unknown>
  channel: ClientChannel
  remoteAddress: string
}

export interface WebCallContext {
  callId: string
  claims: WebCallClaims
  variables: Record<string, unknown>
  release: () => void
}

export interface WebCallGateOptions {
  tokens: WebCallTokens
  liveCalls: LiveCalls
  /** Starts the session; `hello` has been sent. Must not throw (a throw ends the call with 1011). */
  onCall(call: WebCall): void
  writer?: Partial<AudioWriterOptions>
}

const refusal = (closeCode: keyof typeof CloseReason): Authorization<WebCallContext> => ({ ok: false, closeCode, reason: CloseReason[closeCode] })

export function createWebCallGate(o: WebCallGateOptions): ConnectionHandler<WebCallContext> {
  return {
    async authorize(req: UpgradeRequest): Promise<Authorization<WebCallContext>> {
      const v = req.query.get('v')
      if (v !== null && v !== String(PROTOCOL_VERSION)) return refusal(CloseCode.protocolVersionUnsupported)
      const token = req.query.get('token')
      if (!token) return refusal(CloseCode.tokenInvalid)
      const verified = await o.tokens.verify(token)
      if (!verified.ok) return verified
      // The slot is taken before the token is used up, so a caller refused for the cap keeps a
      // token they can retry with until it expires.
      const release = o.liveCalls.acquire(verified.claims.organizationId)
      if (!release) return refusal(CloseCode.concurrencyLimit)
      const used = o.tokens.consume(verified.claims)
      if (!used.ok) {
        release()
        return used
      }
      // A call created by POST /calls keeps the id it was given (its session row is waiting).
      return { ok: true, context: { callId: verified.claims.callId ?? randomUUID(), claims: verified.claims, variables: used.variables, release } }
    },
    abandoned(context) {
      context.release()
    },
    open(conn, ctx) {
      const channel = new ClientChannel(conn, ctx.callId, o.writer)
      conn.onClose(() => ctx.release())
      channel.send(events.hello(ctx.callId))
      channel.send(events.status('connecting'))
      try {
        o.onCall({ callId: ctx.callId, claims: ctx.claims, variables: ctx.variables, channel, remoteAddress: conn.remoteAddress })
      } catch {
        channel.send(events.error('internal_error', 'the call could not start'))
        channel.end('error', CloseCode.internalError)
      }
    },
  }
}
