import { randomBytes } from 'node:crypto'
import { checkHost, type GuardOptions, type Logger } from '../../core/index.js'
import type { PhoneNumberRow, Repos, SipTrunkRow } from '../../db/index.js'
import type { LiveCalls, PreparedCall } from '../../engine/index.js'
import {
  authorizeRequest,
  CSeq,
  DEFAULT_SESSION_TIMER,
  DigestClient,
  negotiateAsUac,
  parseSdp,
  type Peer,
  SdpSession,
  SipHeaders,
  SipRequest,
  type SipResponse,
  SipUri,
  serializeSdp,
  retryAfter422,
  sessionTimerRequestHeaders,
  type SessionTimerPolicy,
  uacDialog,
} from '../../sip/index.js'
import { CallDialog, type CallDialogDeps } from '../calls/call-dialog.js'
import type { PhoneCallStart } from '../calls/types.js'
import type { CallMedia, PhoneSignals } from '../media/types.js'
import { nextHop } from '../registration/index.js'
import { uriHost } from '../sip/peers.js'
import { newCallId, newTag, type SipUserAgent } from '../sip/user-agent.js'

/** How an outbound call ended before it was answered, or that it was answered. */
export type DialProgress = 'ringing' | 'answered' | 'busy' | 'no_answer' | 'canceled' | 'refused' | 'failed'

export interface DialRequest {
  callId: string
  from: PhoneNumberRow
  /** E.164. */
  to: string
  workflowId: string | null
}

export interface DialContext {
  ua: SipUserAgent
  repos: Pick<Repos, 'sipTrunks'>
  guard: GuardOptions
  logger: Logger
  liveCalls: LiveCalls
  mediaAddress: string
  /** How long it may ring before we CANCEL (no-answer). */
  ringTimeoutMs: number
  passwordOf(trunk: SipTrunkRow): string | null
  openMedia(signals: PhoneSignals): Promise<CallMedia>
  prepare(start: PhoneCallStart): PreparedCall
  startCall(callId: string, media: CallMedia, prepared: PreparedCall): void
  /** The call's state for its record (api: the pending session row); `detail` names a failure. */
  progress(callId: string, state: DialProgress, detail?: string): void
  dialogDeps: Omit<CallDialogDeps, 'transport' | 'source' | 'onClosed' | 'referDomain'>
  established(call: CallDialog): void
  closed(call: CallDialog): void
}

const BUSY = new Set([486, 600])
const NO_ANSWER = new Set([408, 480, 487])

/**
 * Places one call through the number's trunk (issue #21 item 5): INVITE with our offer to the
 * trunk's outbound proxy or host (through the outbound guard), Digest answered once when
 * challenged (401/407), 180/183 reported as ringing, a CANCEL after the ring timeout. A 2xx is
 * acknowledged and, when the organization still has room (the cap is checked when the call
 * connects, as the spec says), the agent starts; over the cap it is hung up and recorded refused.
 */
export async function dial(r: DialRequest, ctx: DialContext): Promise<void> {
  const log = ctx.logger.child({ call_id: r.callId, organization_id: r.from.organization_id, direction: 'outbound' })
  const trunk = ctx.repos.sipTrunks.byId(r.from.trunk_id)
  if (!trunk) return ctx.progress(r.callId, 'failed', 'trunk_missing')
  let target: Peer
  try {
    const hop = nextHop(trunk)
    const [address] = await checkHost(hop.host.replace(/^\[(.*)\]$/, '$1'), ctx.guard)
    target = { transport: trunk.transport.toUpperCase(), host: address!.address, port: hop.port }
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'outbound call: the trunk cannot be reached')
    return ctx.progress(r.callId, 'failed', 'destination_refused')
  }
  let call: CallDialog | undefined
  const signals: PhoneSignals = { ended: () => call?.hangUp(), transfer: (target) => call?.refer(target) }
  let media: CallMedia
  try {
    media = await ctx.openMedia(signals)
  } catch {
    return ctx.progress(r.callId, 'failed', 'no_media_port')
  }
  const sdp = new SdpSession({ address: ctx.mediaAddress, port: media.localPort, sessionId: BigInt(`0x${randomBytes(6).toString('hex')}`), ptimesMs: [20] })
  const domain = uriHost(trunk.domain ?? trunk.host)
  const fromUser = r.from.number
  const invite = new SipRequest(
    'INVITE',
    new SipUri({ user: r.to, host: domain }),
    new SipHeaders([
      ...(trunk.outbound_proxy ? [['Route', `<sip:${trunk.outbound_proxy}${trunk.transport === 'tcp' ? ';transport=tcp' : ''};lr>`] as [string, string]] : []),
      ['Max-Forwards', '70'],
      ['From', `<sip:${fromUser}@${domain}>;tag=${newTag()}`],
      ['To', `<sip:${r.to}@${domain}>`],
      ['Call-ID', newCallId(ctx.ua.publicHost)],
      ['CSeq', '1 INVITE'],
      ['Contact', ctx.ua.contact(trunk.username ?? fromUser.replace('+', ''), trunk.transport)],
      ['Allow', 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, REFER, NOTIFY'],
      ['User-Agent', 'Ozan'],
      ...sessionTimerRequestHeaders(),
      ['Content-Type', 'application/sdp'],
    ]),
    Buffer.from(serializeSdp(sdp.createOffer())),
  )
  const user = trunk.auth_username ?? trunk.username
  let password: string | null = null
  try {
    password = user === null ? null : ctx.passwordOf(trunk)
  } catch {
    password = null
  }
  const digest = user !== null && password !== null ? new DigestClient({ accounts: [{ username: user, password }] }) : undefined
  let ringing = false
  // RFC 4028 §7.3: a 422 names the shortest interval the far end takes; we ask again once with it.
  let timerPolicy: SessionTimerPolicy = DEFAULT_SESSION_TIMER
  let retried422 = false
  let settled = false
  let cancelled = false
  let ringTimer: NodeJS.Timeout | undefined
  const finish = (state: DialProgress, detail?: string) => {
    if (settled) return
    settled = true
    clearTimeout(ringTimer)
    if (state !== 'answered') media.close()
    ctx.progress(r.callId, state, detail)
  }

  const send = (request: SipRequest, authAnswered: boolean) => {
    const { transaction, sent } = ctx.ua.request(request, target, {
      response: (res) => onResponse(sent, res, authAnswered),
      failed: (why) => finish(why === 'timeout' ? 'no_answer' : 'failed', why),
    })
    clearTimeout(ringTimer)
    ringTimer = setTimeout(() => {
      cancelled = true
      ctx.ua.cancel(transaction)
    }, ctx.ringTimeoutMs)
    ringTimer.unref()
  }

  const onResponse = (sent: SipRequest, res: SipResponse, authAnswered: boolean) => {
    if (res.status < 200) {
      if ((res.status === 180 || res.status === 183) && !ringing) {
        ringing = true
        ctx.progress(r.callId, 'ringing')
      }
      return
    }
    if (res.status >= 300) {
      if ((res.status === 401 || res.status === 407) && digest && !authAnswered && !settled) {
        const again = authorizeRequest(sent, res, digest)
        if (again.ok) return send(again.value, true)
        return finish('failed', `${res.status} ${again.error.code}`)
      }
      if (res.status === 422 && !retried422 && !settled) {
        retried422 = true
        const next = retryAfter422(res, timerPolicy)
        if (next) {
          timerPolicy = next
          return send(withSessionTimer(sent, next), authAnswered)
        }
      }
      if (BUSY.has(res.status)) return finish('busy', String(res.status))
      if (NO_ANSWER.has(res.status)) return finish(cancelled || res.status !== 487 ? 'no_answer' : 'canceled', String(res.status))
      return finish('failed', `${res.status} ${res.reason}`.slice(0, 80))
    }
    if (settled) return // a 2xx retransmission or another fork's: the service re-ACKs it by dialog
    answered(sent, res)
  }

  const answered = (sent: SipRequest, res: SipResponse) => {
    const made = uacDialog(sent, res)
    if (!made.ok) return finish('failed', 'bad_2xx')
    const dialog = made.value
    const ack = dialog.ack(sent)
    ctx.ua.sendStateless(ack, target)
    const parsed = parseSdp(res.body)
    const read = parsed.ok ? sdp.readAnswer(parsed.sdp) : undefined
    call = new CallDialog(dialog, media, sdp, {
      ...ctx.dialogDeps,
      referDomain: domain,
      transport: target.transport,
      source: target,
      onClosed: () => {
        release?.()
        if (call) ctx.closed(call)
      },
    })
    call.lastAck = { request: ack, target }
    ctx.established(call)
    if (!read?.ok) {
      finish('failed', 'no_common_codec')
      return call.hangUp()
    }
    // The spec: an outbound call over the live-call cap is refused when it connects.
    const release = ctx.liveCalls.acquire(r.from.organization_id) ?? undefined
    if (!release) {
      log.warn('outbound call answered over the live-call cap: hung up')
      finish('refused', 'concurrency_limit')
      return call.hangUp()
    }
    let prepared: PreparedCall
    try {
      prepared = ctx.prepare({
        callId: r.callId,
        organizationId: r.from.organization_id,
        environmentId: r.from.environment_id,
        workflowId: r.workflowId ?? '',
        callerNumber: r.from.number,
        calledNumber: r.to,
        direction: 'outbound',
      })
    } catch (err) {
      finish('failed', (err as { code?: string }).code ?? 'internal_error')
      return call.hangUp()
    }
    finish('answered')
    media.apply(read.negotiated)
    const timer = negotiateAsUac(res)
    if (timer.ok && timer.timer) call.startSessionTimer(timer.timer, 'uac')
    ctx.startCall(r.callId, media, prepared)
    log.info({ to: r.to }, 'outbound call answered')
  }

  send(invite, false)
}

/** `sent` asked again (next CSeq, new branch from the UA) with the session interval a 422 asked for. */
function withSessionTimer(sent: SipRequest, policy: SessionTimerPolicy): SipRequest {
  const cseq = sent.headers.cseq()
  let headers = sent.headers.without('Via').without('Session-Expires').without('Min-SE').without('Supported')
  for (const [name, value] of sessionTimerRequestHeaders(policy)) headers = headers.with(name, value)
  headers = headers.set('CSeq', new CSeq(cseq.seq + 1, cseq.method).serialize())
  return new SipRequest(sent.method, sent.uri, headers, sent.body)
}
