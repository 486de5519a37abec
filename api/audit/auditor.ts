import type { Clock } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import type { RequestInfo } from '../http/route.js'
import type { Principal } from '../security/principal.js'

export interface AuditEntry {
  action: string
  resourceType: string
  resourceId?: string | null
  outcome?: 'success' | 'failure'
  metadata?: Record<string, unknown>
}

/** For events whose actor is not an authenticated principal (sign-in, register, reset). */
export interface AuditSubject {
  organizationId: string | null
  userId: string | null
}

/** Writes the append-only audit trail. One call per event, synchronous (one indexed insert). */
export class Auditor {
  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
  ) {}

  record(who: Principal | AuditSubject, req: RequestInfo | null, e: AuditEntry): void {
    const principal = 'kind' in who ? who : null
    this.repos.audit.insert({
      organization_id: who.organizationId,
      environment_id: principal?.environmentId ?? null,
      actor_type: principal ? principal.kind : who.userId ? 'user' : 'anonymous',
      actor_id: principal ? (principal.apiKeyId ?? principal.userId) : who.userId,
      actor_user_id: who.userId,
      action: e.action,
      resource_type: e.resourceType,
      resource_id: e.resourceId ?? null,
      outcome: e.outcome ?? 'success',
      ip: req?.ip ?? null,
      user_agent: req?.userAgent.slice(0, 512) || null,
      request_id: req?.requestId ?? null,
      metadata: e.metadata ? JSON.stringify(e.metadata) : null,
      created_at: this.clock.now(),
    })
  }
}
