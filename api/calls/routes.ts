import { defineRoute } from '../http/route.js'
import { WebCallTokenRequest, WebCallTokenResponse } from './schema.js'
import type { CallService } from './service.js'

const tag = 'Calls'

export function callRoutes(calls: CallService) {
  return [
    defineRoute({
      operationId: 'calls_web_token', method: 'post', path: '/api/v1/calls/web-token', auth: 'A', permission: 'agents:run', tag,
      summary: 'A single-use token for one browser call of a published agent (connect to ws_url)',
      description:
        'The agent must be in the request’s environment and have a published version (the newest runs). The token lives OZAN_WEB_CALL_TOKEN_TTL_S ' +
        '(default 300 s) and opens one call; ws_url already holds it. At the organization’s live-call cap (OZAN_MAX_LIVE_CALLS_PER_ORG) the answer is ' +
        '429 concurrency_limit. The call is recorded as a session of channel "web"; the socket protocol and close codes are in docs/protocol.md.',
      audit: { action: 'call.web_token_created', resource: 'workflow' },
      body: WebCallTokenRequest, status: 201, response: WebCallTokenResponse, errors: ['not_found', 'no_published_version', 'concurrency_limit'],
      handler: ({ auth, body }) => calls.webToken(auth, body),
    }),
  ]
}
