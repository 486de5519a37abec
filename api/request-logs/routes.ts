import { z } from 'zod'
import type { RequestLogRow, Repos } from '../../db/index.js'
import { ms, timeWindow, MAX_PAGE } from '../audit/routes.js'
import { defineRoute } from '../http/route.js'

export const RequestLogResponse = z
  .object({
    id: z.number().int(),
    method: z.string(),
    route: z.string().describe('The route template, e.g. /api/v1/api-keys/:key_id.'),
    status: z.number().int(),
    duration_ms: z.number(),
    request_id: z.string(),
    user_id: z.string().nullable(),
    api_key_id: z.string().nullable(),
    environment_id: z.string().nullable(),
    ip: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'RequestLogResponse' })

export const Page_RequestLogResponse_ = z
  .object({
    items: z.array(RequestLogResponse),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'Page_RequestLogResponse_' })

const Query = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  api_key_id: z.uuid().optional(),
  ...timeWindow,
})

const toResponse = (r: RequestLogRow): z.output<typeof RequestLogResponse> => ({
  id: r.id,
  method: r.method,
  route: r.route,
  status: r.status,
  duration_ms: r.duration_ms,
  request_id: r.request_id,
  user_id: r.user_id,
  api_key_id: r.api_key_id,
  environment_id: r.environment_id,
  ip: r.ip,
  created_at: new Date(r.created_at).toISOString(),
})

export function requestLogRoutes(repos: Repos, flush: () => void) {
  return [
    defineRoute({
      operationId: 'request_logs_list',
      method: 'get',
      path: '/api/v1/request-logs',
      auth: 'A',
      permission: 'request_logs:read',
      tag: 'Entitlements, flags, audit',
      summary: "The organization's API request logs, newest first",
      description: `Filters: method, status, api_key_id, since, until. limit defaults to 50, at most ${MAX_PAGE}. Rows are kept OZAN_REQUEST_LOG_RETENTION_DAYS days.`,
      query: Query,
      status: 200,
      response: Page_RequestLogResponse_,
      handler: ({ auth, query }) => {
        flush() // include requests still in the write buffer
        const page = repos.requestLogs.page(auth.organizationId, {
          method: query.method ?? null,
          status: query.status ?? null,
          apiKeyId: query.api_key_id ?? null,
          since: ms(query.since),
          until: ms(query.until),
          limit: query.limit,
          offset: query.offset,
        })
        return { items: page.items.map(toResponse), total: page.total, limit: query.limit, offset: query.offset }
      },
    }),
  ]
}
