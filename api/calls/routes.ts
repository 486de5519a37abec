import { SessionMessageRequest, SessionTurnResponse } from '../sessions/schema.js'
import { defineRoute } from '../http/route.js'
import {
  CallControlRequest,
  CallControlResponse,
  CallCreate,
  CallDetail,
  CallListQuery,
  CallPath,
  CallResponse,
  PageCallSummary,
  WebCallTokenRequest,
  WebCallTokenResponse,
} from './schema.js'
import type { CallService } from './service.js'

const tag = 'Calls'
const resource = 'call'

export function callRoutes(calls: CallService) {
  return [
    defineRoute({
      operationId: 'calls_create',
      method: 'post',
      path: '/api/v1/calls',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Start a call: a chat session (answered at once) or a web call (connect to ws_url); a saved agent or a transient inline one',
      description:
        'chat: the agent’s opening is in `messages`; continue with POST /api/v1/calls/{call_uuid}/messages. web: the call is `pending` until a browser ' +
        'opens `ws_url` (single-use, valid OZAN_WEB_CALL_TOKEN_TTL_S); never connected, it fails with error_code not_connected. phone: 400 ' +
        'telephony_not_configured until a telephony provider exists. A web call over the organization’s live-call cap is 429 concurrency_limit ' +
        '(chat sessions do not count); one whose agent lacks a speech (or needed LLM) provider key is 400 provider_not_configured, as for web-token. ' +
        'There is no idempotency key: a retried request starts another call.',
      audit: { action: 'call.created', resource },
      body: CallCreate,
      status: 201,
      response: CallResponse,
      errors: [
        'not_found',
        'no_published_version',
        'telephony_not_configured',
        'concurrency_limit',
        'provider_not_configured',
        'upstream_error',
        'service_unavailable',
      ],
      handler: ({ auth, body }) => calls.create(auth, body),
    }),
    defineRoute({
      operationId: 'calls_list',
      method: 'get',
      path: '/api/v1/calls',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'Calls and sessions of the environment, newest first, with search',
      query: CallListQuery,
      status: 200,
      response: PageCallSummary,
      handler: ({ auth, query }) => calls.list(auth, query),
    }),
    defineRoute({
      operationId: 'calls_web_token',
      method: 'post',
      path: '/api/v1/calls/web-token',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'A single-use token for one browser call of a published agent (connect to ws_url)',
      description:
        'The agent must be in the request’s environment and have a published version (the newest runs). The token lives OZAN_WEB_CALL_TOKEN_TTL_S ' +
        '(default 300 s) and opens one call; ws_url already holds it. At the organization’s live-call cap (OZAN_MAX_LIVE_CALLS_PER_ORG) the answer is ' +
        '429 concurrency_limit. An agent whose speech-to-text (or text-to-speech, or, for conversation nodes, LLM) provider has no key is 400 ' +
        'provider_not_configured, naming the credential to store. The call is recorded as a session of channel "web"; the socket protocol and close codes are in docs/protocol.md.',
      audit: { action: 'call.web_token_created', resource: 'workflow' },
      body: WebCallTokenRequest,
      status: 201,
      response: WebCallTokenResponse,
      errors: ['not_found', 'no_published_version', 'provider_not_configured', 'concurrency_limit'],
      handler: ({ auth, body }) => calls.webToken(auth, body),
    }),
    defineRoute({
      operationId: 'calls_get',
      method: 'get',
      path: '/api/v1/calls/{call_uuid}',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'One call: status, timestamps, transcript (interrupted lines marked), events, usage, cost, latency per turn',
      params: CallPath,
      status: 200,
      response: CallDetail,
      errors: ['not_found'],
      handler: ({ auth, params }) => calls.detail(auth, params.call_uuid),
    }),
    defineRoute({
      operationId: 'calls_control',
      method: 'post',
      path: '/api/v1/calls/{call_uuid}/control',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Say a line, transfer, or end a live call; receivers is 0 when the call has already ended',
      description:
        'say: spoken after the current line, or at once cutting it with interrupt: true (the cut line is kept as heard, marked interrupted). ' +
        'end: after the current line (and any queued say), or at once with immediately: true; recorded disposition ended_by_api. transfer: a web ' +
        'call gets a `transfer` event with the target and ends (disposition transfer). A chat session is controlled by the API itself ' +
        '(say adds an agent line; end and transfer close it).',
      audit: { action: 'call.controlled', resource },
      params: CallPath,
      body: CallControlRequest,
      status: 202,
      response: CallControlResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body }) => calls.control(auth, params.call_uuid, body),
    }),
    defineRoute({
      operationId: 'calls_message',
      method: 'post',
      path: '/api/v1/calls/{call_uuid}/messages',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'The caller’s next message in a chat call (transient agents included)',
      audit: { action: 'session.message', resource },
      params: CallPath,
      body: SessionMessageRequest,
      status: 200,
      response: SessionTurnResponse,
      errors: ['not_found', 'session_ended', 'voice_session', 'provider_not_configured', 'upstream_error', 'service_unavailable'],
      handler: ({ auth, params, body }) => calls.message(auth, params.call_uuid, body.text),
    }),
  ]
}
