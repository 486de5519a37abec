import { z } from 'zod'
import type { AuditRow, Repos } from '../../db/index.js'
import { arrayPage, DEFAULT_PAGE_LIMITS, pageQuery, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'

/** The audit trail's and the request logs' page sizes. */
export const DEFAULT_AUDIT_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const MAX_PAGE = DEFAULT_AUDIT_PAGE_LIMITS.maxLimit

/** `since`/`until` bounds and paging shared by the audit trail and request logs. */
export const timeWindow = {
  since: z.iso.datetime({ offset: true }).optional().describe('Only events at or after this time.'),
  until: z.iso.datetime({ offset: true }).optional().describe('Only events before this time.'),
  ...pageQuery(DEFAULT_AUDIT_PAGE_LIMITS),
}

export const ms = (t: string | undefined) => (t === undefined ? null : Date.parse(t))

export const AuditEventResponse = z
  .object({
    id: z.number().int(),
    action: z.string(),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    outcome: z.enum(['success', 'failure']),
    actor: z.object({
      type: z.enum(['user', 'api_key', 'anonymous', 'system']),
      id: z.string().nullable().describe('The user id, or the API key id for key actors.'),
      user_id: z.string().nullable(),
    }),
    environment_id: z.string().nullable(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    request_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'AuditEventResponse' })

const AuditQuery = z.object({
  action: z.string().max(100).optional(),
  resource_type: z.string().max(100).optional(),
  actor: z.string().max(100).optional().describe('A user id or API key id.'),
  ...timeWindow,
})

function toResponse(r: AuditRow): z.output<typeof AuditEventResponse> {
  return {
    id: r.id,
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    outcome: r.outcome,
    actor: { type: r.actor_type, id: r.actor_id, user_id: r.actor_user_id },
    environment_id: r.environment_id,
    ip: r.ip,
    user_agent: r.user_agent,
    request_id: r.request_id,
    metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    created_at: new Date(r.created_at).toISOString(),
  }
}

export function auditRoutes(repos: Repos) {
  return [
    defineRoute({
      operationId: 'audit_list',
      method: 'get',
      path: '/api/v1/audit',
      auth: 'A',
      permission: 'audit:read',
      tag: 'Entitlements, flags, audit',
      summary: 'The audit trail, newest first',
      description: `Filters: action, resource_type, actor, since, until. ${pagingDescription(DEFAULT_AUDIT_PAGE_LIMITS)}`,
      query: AuditQuery,
      status: 200,
      response: z.array(AuditEventResponse),
      handler: ({ auth, query, req }) => {
        const page = repos.audit.page(auth.organizationId, {
          action: query.action ?? null,
          resourceType: query.resource_type ?? null,
          actorId: query.actor ?? null,
          since: ms(query.since),
          until: ms(query.until),
          limit: query.limit,
          offset: query.offset,
        })
        return arrayPage(req, { items: page.items.map(toResponse), total: page.total }, query)
      },
    }),
  ]
}
