import { z } from 'zod'
import { WorkflowPath } from '../workflows/schema.js'
import { arrayPage, DEFAULT_EVENT_PAGE_LIMITS, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import {
  RunEventResponse,
  RunSummary,
  DEFAULT_SESSION_PAGE_LIMITS,
  SessionDetail,
  SessionEventsQuery,
  SessionListQuery,
  SessionMessageRequest,
  SessionPath,
  SessionStartRequest,
  SessionStartResponse,
  SessionTurnResponse,
  TextRunRequest,
  TextRunResponse,
  VoiceTurnResponse,
} from './schema.js'
import { RawBodyField } from '../http/raw.js'
import { MAX_VOICE_TURN_MS, VOICE_MEDIA_TYPES } from './voice.js'
import type { SessionService } from './service.js'

const tag = 'Sessions and runs'
const resource = 'session'
const runErrors = ['not_found', 'no_published_version', 'unknown_version', 'provider_not_configured', 'upstream_error', 'service_unavailable'] as const

export function sessionRoutes(sessions: SessionService) {
  return [
    defineRoute({
      operationId: 'workflows_text_run',
      method: 'post',
      path: '/api/v1/workflows/{workflow_uuid}/runs/text',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'One run from input to output, recorded as a completed session of channel "run"',
      audit: { action: 'session.run', resource },
      params: WorkflowPath,
      body: TextRunRequest,
      status: 200,
      response: TextRunResponse,
      errors: [...runErrors],
      handler: ({ auth, params, body }) => sessions.run(auth, params.workflow_uuid, body),
    }),
    defineRoute({
      operationId: 'sessions_start',
      method: 'post',
      path: '/api/v1/workflows/{workflow_uuid}/sessions',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Start a text session (emits session.started); the agent’s opening is in the response',
      description: 'Runs the newest published version unless version or use_draft say otherwise. The body may be absent or null.',
      audit: { action: 'session.started', resource },
      params: WorkflowPath,
      body: SessionStartRequest,
      bodyOptional: true,
      status: 201,
      response: SessionStartResponse,
      errors: [...runErrors],
      handler: ({ auth, params, body }) => sessions.start(auth, params.workflow_uuid, body ?? SessionStartRequest.parse({})),
    }),
    defineRoute({
      operationId: 'sessions_message',
      method: 'post',
      path: '/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/messages',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Send the caller’s next message; messages to one session are handled one at a time',
      audit: { action: 'session.message', resource },
      params: SessionPath,
      body: SessionMessageRequest,
      status: 200,
      response: SessionTurnResponse,
      errors: [...runErrors, 'session_ended', 'voice_session'],
      handler: ({ auth, params, body }) => sessions.message(auth, params.workflow_uuid, params.session_uuid, body.text),
    }),
    defineRoute({
      operationId: 'sessions_voice',
      method: 'post',
      path: '/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/voice',
      auth: 'A',
      permission: 'agents:run',
      tag,
      summary: 'Send the caller’s next message as audio: transcribed, run as a message, the reply spoken back',
      description:
        `The body is the audio itself: a PCM 16-bit WAV (audio/wav, any rate and channel count) or raw PCM16LE mono (audio/pcm;rate=16000), ` +
        `at most ${MAX_VOICE_TURN_MS / 1000} s and OZAN_UPLOAD_LIMIT_BYTES (413 file_too_large). The agent’s stt provider transcribes it, the words run ` +
        'like POST …/messages (one turn at a time per session), and the reply comes back as text and as a base64 WAV (16 kHz mono) from its tts provider. ' +
        'Unreadable, empty or over-long audio, and audio with no recognized speech (no_speech), are 422 and record nothing.',
      audit: { action: 'session.message', resource },
      params: SessionPath,
      body: RawBodyField,
      bodyEncoding: 'raw',
      rawMediaTypes: VOICE_MEDIA_TYPES,
      status: 200,
      response: VoiceTurnResponse,
      errors: [...runErrors, 'session_ended', 'voice_session'],
      handler: ({ auth, params, body }) => sessions.voice(auth, params.workflow_uuid, params.session_uuid, body),
    }),
    defineRoute({
      operationId: 'sessions_events',
      method: 'get',
      path: '/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/events',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'The session’s events in order',
      description: pagingDescription(DEFAULT_EVENT_PAGE_LIMITS),
      params: SessionPath,
      query: SessionEventsQuery,
      status: 200,
      response: z.array(RunEventResponse),
      errors: ['not_found'],
      handler: ({ auth, params, query, req }) => arrayPage(req, sessions.events(auth, params.workflow_uuid, params.session_uuid, query), query),
    }),
    defineRoute({
      operationId: 'sessions_get',
      method: 'get',
      path: '/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'A session: status, transcript, variables, usage',
      params: SessionPath,
      status: 200,
      response: SessionDetail,
      errors: ['not_found'],
      handler: ({ auth, params }) => sessions.detail(auth, params.workflow_uuid, params.session_uuid),
    }),
    defineRoute({
      operationId: 'sessions_list',
      method: 'get',
      path: '/api/v1/sessions',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'Sessions of the request’s environment, newest first',
      description: `Filters: workflow_uuid, status, channel. ${pagingDescription(DEFAULT_SESSION_PAGE_LIMITS)}`,
      query: SessionListQuery,
      status: 200,
      response: z.array(RunSummary),
      handler: ({ auth, query, req }) => arrayPage(req, sessions.list(auth, query), query),
    }),
  ]
}
