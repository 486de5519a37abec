import { z } from 'zod'
import { upstreamApiError } from '../http/upstream.js'
import { defineRoute } from '../http/route.js'
import { IrisChatRequest, IrisChatResponse, IrisSessionOption, IrisSessionsPath } from './schema.js'
import type { IrisService } from './service.js'

const tag = 'Agent chat helper'
const CHAT_TIMEOUT_MS = 120_000

export function irisRoutes(iris: IrisService) {
  return [
    defineRoute({
      operationId: 'iris_sessions',
      method: 'get',
      path: '/api/v1/iris/sessions/{workflow_uuid}',
      auth: 'A',
      permission: 'sessions:read',
      tag,
      summary: 'Recent sessions of an agent to discuss with the helper',
      params: IrisSessionsPath,
      status: 200,
      response: z.array(IrisSessionOption),
      errors: ['not_found'],
      handler: ({ auth, params }) => iris.sessions(auth, params.workflow_uuid),
    }),
    defineRoute({
      operationId: 'iris_chat',
      method: 'post',
      path: '/api/v1/iris/chat',
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Ask the helper about an agent and one of its sessions; it may propose a graph change (never applied)',
      audit: 'none',
      body: IrisChatRequest,
      status: 200,
      response: IrisChatResponse,
      errors: ['not_found', 'provider_not_configured', 'upstream_error', 'service_unavailable'],
      handler: async ({ auth, body }) => {
        try {
          return await iris.chat(auth, body, AbortSignal.timeout(CHAT_TIMEOUT_MS))
        } catch (err) {
          throw upstreamApiError(err)
        }
      },
    }),
  ]
}
