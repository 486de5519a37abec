/**
 * Slack: `chat.postMessage` through the Web API with the stored bot token
 * (https://api.slack.com/methods/chat.postMessage). Slack reports method errors as HTTP 200 with
 * `{ ok: false, error }`; that error name (invalid_auth, channel_not_found, …) becomes the
 * action's error code unchanged, so it can be looked up in Slack's documentation.
 */
import { z } from 'zod'
import { defineAction, endpoint, invalidResponse, jsonBody, type IntegrationDef } from './action.js'

export const SLACK_API_URL = 'https://slack.com/api'

const postMessage = defineAction({
  name: 'post_message',
  description: 'Post a message to a Slack channel (by id, or by name such as #general) as the bot.',
  input: z
    .object({
      channel: z.string().trim().min(1).max(200).describe('Channel id (C0123…) or name (#general). The bot must be a member of it.'),
      text: z.string().min(1).max(40_000).describe('Message text (Slack mrkdwn).'),
      thread_ts: z
        .string()
        .regex(/^\d+\.\d+$/, 'Must be a Slack message ts such as 1700000000.000100')
        .optional()
        .describe('Reply in the thread of this message.'),
    })
    .strict(),
  output: '{ channel, ts, text }: the channel id the message went to, its Slack timestamp (its id) and its text as Slack stored it.',
  async run(input, ctx) {
    const res = await ctx.request({
      method: 'POST',
      url: endpoint(ctx.credential, SLACK_API_URL, '/chat.postMessage'),
      headers: { authorization: `Bearer ${ctx.credential!.bot_token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: input.channel, text: input.text, ...(input.thread_ts && { thread_ts: input.thread_ts }) }),
    })
    if (res.status === 429) {
      return { ok: false, error: { code: 'ratelimited', message: `Slack rate limit reached; retry after ${res.headers['retry-after'] ?? 'a few'} seconds.` } }
    }
    const body = jsonBody(res)
    if (!body || typeof body.ok !== 'boolean') return invalidResponse('Slack', res.status)
    if (!body.ok) {
      const code = typeof body.error === 'string' ? body.error : 'unknown_error'
      return { ok: false, error: { code, message: `Slack refused the message: ${code}.` } }
    }
    const message = (body.message ?? {}) as { text?: unknown }
    return { ok: true, output: { channel: body.channel, ts: body.ts, text: typeof message.text === 'string' ? message.text : input.text } }
  },
})

export const slackIntegration: IntegrationDef = {
  key: 'slack',
  name: 'Slack',
  description: 'Send messages to Slack channels with a bot token.',
  provider: 'slack',
  actions: [postMessage],
}
