import type { Clock } from '../../core/index.js'
import type { Region } from '../../core/config.js'
import type { PageRequest, Repos } from '../../db/index.js'
import type { Auditor } from '../audit/auditor.js'
import type { AccountService } from '../auth/service.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { BUILTIN_ROLE_IDS } from '../rbac/index.js'
import type { Principal } from '../security/principal.js'
import type { OrganizationResponseT } from './schema.js'

export class OrganizationService {
  constructor(
    private readonly repos: Repos,
    private readonly accounts: AccountService,
    private readonly auditor: Auditor,
    private readonly clock: Clock,
    private readonly regions: Region[],
  ) {}

  current(p: Principal): OrganizationResponseT {
    return this.response(p.organizationId, p.userId)
  }

  update(p: Principal, input: { name?: string; default_environment?: 'dev' | 'staging' | 'prod' }): OrganizationResponseT {
    const org = this.repos.organizations.get(p.organizationId)!
    this.repos.organizations.update({
      id: org.id,
      name: input.name ?? org.name,
      default_environment: input.default_environment ?? org.default_environment,
      updated_at: this.clock.now(),
    })
    return this.response(org.id, p.userId)
  }

  list(p: Principal, at: PageRequest) {
    const page = this.repos.members.organizationsOf(p.userId, at)
    return { items: page.items.map((o) => ({ id: o.id, name: o.name, role: o.role_key, current: o.id === p.organizationId })), total: page.total }
  }

  async create(p: Principal, name: string, req: RequestInfo) {
    const now = this.clock.now()
    const org = this.repos.transaction(() => {
      const created = this.repos.organizations.create(name, p.userId, now)
      this.repos.organizations.addMember(created.id, p.userId, BUILTIN_ROLE_IDS.owner, now)
      return created
    })
    this.auditor.record({ organizationId: org.id, userId: p.userId }, req, { action: 'organization.created', resourceType: 'organization', resourceId: org.id })
    return { ...(await this.accounts.startSession(p.userId, org.id)), organization: this.response(org.id, p.userId) }
  }

  /** A new session in another organization the user belongs to; not a member → 404. */
  async switchTo(p: Principal, organizationId: string, req: RequestInfo) {
    if (!this.repos.organizations.membership(organizationId, p.userId)) throw new ApiError('not_found')
    this.auditor.record({ organizationId, userId: p.userId }, req, {
      action: 'organization.switched',
      resourceType: 'organization',
      resourceId: organizationId,
    })
    return { ...(await this.accounts.startSession(p.userId, organizationId)), organization: this.response(organizationId, p.userId) }
  }

  regionList(requestHost: string) {
    // Host names are case-insensitive (RFC 9110 §4.2.3); URL.host is already lower-cased.
    const host = requestHost.toLowerCase()
    const serves = (r: Region) => new URL(r.api_url).host === host
    const fallback = !this.regions.some(serves)
    return this.regions.map((r, i) => ({ ...r, current: serves(r) || (fallback && i === 0) }))
  }

  private response(organizationId: string, userId: string): OrganizationResponseT {
    const org = this.repos.organizations.get(organizationId)!
    return {
      id: org.id,
      name: org.name,
      default_environment: org.default_environment,
      role: this.repos.organizations.membership(organizationId, userId)?.role_key ?? null,
      member_count: this.repos.members.count(organizationId),
      created_at: new Date(org.created_at).toISOString(),
    }
  }
}
