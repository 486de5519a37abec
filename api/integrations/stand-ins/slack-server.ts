/**
 * A local stand-in for the Slack Web API method `chat.postMessage`, speaking Slack's wire rules:
 * a bot token as `Authorization: Bearer` (or a `token` form field), a JSON or URL-encoded body,
 * HTTP 200 with `{ ok: false, error }` for method errors (`not_authed`, `invalid_auth`,
 * `channel_not_found`, `no_text`, `msg_too_long`), 429 `ratelimited` with Retry-After, and
 * `{ ok: true, channel, ts, message }` built from the caller's own input.
 */
import { startStandIn, type InjectedFailure, type LoggedRequest } from './stand-in-http.js'

export type { InjectedFailure, LoggedRequest } from './stand-in-http.js'

export interface SlackStandInOptions {
  /** The bot token that authenticates (xoxb-…). */
  botToken: string
  /** Channel name (without #) → channel id. Posting by name or by id both work, as in Slack. */
  channels?: Record<string, string>
  host?: string
  port?: number
}

export interface PostedMessage {
  channel: string
  ts: string
  text: string
  thread_ts?: string
}

export interface SlackStandIn {
  /** Web API base URL, ending in /api (as https://slack.com/api). */
  url: string
  requests: LoggedRequest[]
  /** Messages accepted, in order. */
  messages: PostedMessage[]
  fail(...failures: InjectedFailure[]): void
  close(): Promise<void>
}

export const DEFAULT_CHANNELS: Record<string, string> = { general: 'C0GENERAL01', alerts: 'C0ALERTS002' }
const TEAM = 'T0STANDIN01'
const BOT = { bot_id: 'B0STANDIN01', user: 'U0STANDBOT1', app_id: 'A0STANDIN01' }
// Slack's documented limit on `text` (messages longer are truncated by clients, refused here).
const MAX_TEXT_CHARS = 40_000

export async function startSlackStandIn(o: SlackStandInOptions): Promise<SlackStandIn> {
  const channels = o.channels ?? DEFAULT_CHANNELS
  const ids = new Set(Object.values(channels))
  const messages: PostedMessage[] = []
  let seq = 0

  const running = await startStandIn((req, failure) => {
    const fail = (error: string, status = 200, headers: Record<string, string> = {}) => ({ status, body: { ok: false, error }, headers })
    if (req.method !== 'POST' && req.method !== 'GET') return fail('method_not_allowed', 405)
    if (req.path !== '/api/chat.postMessage') return fail('unknown_method', 404)
    if (failure?.kind === 'status') {
      if (failure.status === 429) return fail('ratelimited', 429, { 'retry-after': String(failure.retryAfterS ?? 30) })
      return fail(failure.status >= 500 ? 'fatal_error' : 'request_error', failure.status)
    }
    const body = req.body ?? {}
    const token = bearer(req) ?? (typeof body.token === 'string' ? body.token : undefined)
    if (!token) return fail('not_authed')
    if (token !== o.botToken) return fail('invalid_auth')
    if (req.body === null && req.raw !== '') return fail('invalid_form_data')
    const channelArg = typeof body.channel === 'string' ? body.channel.trim() : ''
    const channel = ids.has(channelArg) ? channelArg : channels[channelArg.replace(/^#/, '')]
    if (!channel) return fail('channel_not_found')
    const text = typeof body.text === 'string' ? body.text : ''
    const hasBlocks = Array.isArray(body.blocks) || (typeof body.blocks === 'string' && body.blocks !== '')
    if (!text.trim() && !hasBlocks) return fail('no_text')
    if (text.length > MAX_TEXT_CHARS) return fail('msg_too_long')
    // Slack's ts: seconds since the epoch, then a per-channel sequence in six digits.
    const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined
    messages.push({ channel, ts, text, ...(threadTs && { thread_ts: threadTs }) })
    const warnings = charsetWarning(req)
    return {
      status: 200,
      body: {
        ok: true,
        channel,
        ts,
        message: {
          ...BOT,
          type: 'message',
          text,
          ts,
          team: TEAM,
          ...(threadTs && { thread_ts: threadTs }),
          bot_profile: { id: BOT.bot_id, name: 'Ozan stand-in', app_id: BOT.app_id },
        },
        ...(warnings && { warning: warnings.join(','), response_metadata: { warnings } }),
      },
    }
  }, o)

  return {
    url: `${running.origin}/api`,
    requests: running.requests,
    messages,
    fail: running.fail,
    close: running.close,
  }
}

function bearer(req: LoggedRequest): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')
  return m?.[1]
}

/** Slack warns (and still posts) when a JSON body is sent without a charset. */
function charsetWarning(req: LoggedRequest): string[] | null {
  const type = req.headers['content-type'] ?? ''
  return /^application\/json/i.test(type) && !/charset=/i.test(type) ? ['missing_charset'] : null
}
