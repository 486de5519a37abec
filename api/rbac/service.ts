import { randomUUID } from 'node:crypto'
import type { Clock, EventBus } from '../../core/index.js'
import type { InvitationRow, MemberRow, PageRequest, Repos, RoleRow } from '../../db/index.js'
import type { Auditor } from '../audit/auditor.js'
import { ApiError, type Lang } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import type { Mailer } from '../mail/mailer.js'
import type { Principal } from '../security/principal.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import { randomToken, sha256Hex } from '../security/random.js'
import { BUILTIN_ROLE_IDS, PERMISSIONS, describePermission, rolePermissions, type Permission } from './permissions.js'
import type { InvitationResponseT, MemberResponseT, RoleResponseT } from './schema.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** A stable key from the name; names with no Latin letters (e.g. 管理者) get one from their hash. */
function roleKey(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s-]+/g, '_')
    .slice(0, 60)
  return /[a-z0-9]/.test(slug) ? slug : `role_${sha256Hex(name.toLowerCase()).slice(0, 12)}`
}

export interface RbacDeps {
  repos: Repos
  clock: Clock
  mailer: Mailer
  bus: EventBus
  auditor: Auditor
  invitationTtlS: number
  /** The plan's member limit (402 quota_exceeded): open invitations count, so each can be accepted. */
  quota: Pick<EntitlementGuard, 'assertInviteRoom' | 'assertJoinRoom'>
}

/** Roles, members and invitations of the caller's organization. */
export class RbacService {
  constructor(private readonly deps: RbacDeps) {}

  permissions() {
    return PERMISSIONS.map((key) => ({ key, ...describePermission(key) }))
  }

  listRoles(p: Principal, at: PageRequest): { items: RoleResponseT[]; total: number } {
    const page = this.deps.repos.roles.page(p.organizationId, at)
    return { items: page.items.map((r) => this.roleResponse(r, r.member_count)), total: page.total }
  }

  createRole(p: Principal, input: { name: string; description: string; permissions: Permission[] }, req: RequestInfo): RoleResponseT {
    this.assertCanGrant(p, new Set(input.permissions))
    const key = roleKey(input.name)
    if (this.deps.repos.roles.findByKey(p.organizationId, key)) throw new ApiError('role_exists')
    const id = this.deps.repos.roles.insert(
      p.organizationId,
      { key, name: input.name, description: input.description, permissions: input.permissions },
      this.deps.clock.now(),
    )
    this.deps.auditor.record(p, req, { action: 'role.created', resourceType: 'role', resourceId: String(id), metadata: { permissions: input.permissions } })
    return this.roleResponse(this.deps.repos.roles.get(p.organizationId, id)!, 0)
  }

  updateRole(p: Principal, id: number, input: { name?: string; description?: string; permissions?: Permission[] }, req: RequestInfo): RoleResponseT {
    const role = this.customRole(p, id)
    if (input.permissions) this.assertCanGrant(p, new Set(input.permissions))
    const name = input.name ?? role.name
    const key = input.name ? roleKey(input.name) : role.key
    const clash = this.deps.repos.roles.findByKey(p.organizationId, key)
    if (clash && clash.id !== id) throw new ApiError('role_exists')
    const permissions = input.permissions ?? (JSON.parse(role.permissions) as Permission[])
    this.deps.repos.roles.update(p.organizationId, id, { key, name, description: input.description ?? role.description, permissions })
    this.deps.auditor.record(p, req, { action: 'role.updated', resourceType: 'role', resourceId: String(id), metadata: { permissions } })
    // member_count counts members only, as in the list (usage() also counts pending invitations).
    const updated = this.deps.repos.roles.list(p.organizationId).find((r) => r.id === id)!
    return this.roleResponse(updated, updated.member_count)
  }

  deleteRole(p: Principal, id: number, req: RequestInfo): void {
    this.customRole(p, id)
    const { repos, clock } = this.deps
    repos.transaction(() => {
      const now = clock.now()
      if (repos.roles.usage(id, now) > 0) throw new ApiError('role_in_use')
      repos.roles.delete(p.organizationId, id, now)
    })
    this.deps.auditor.record(p, req, { action: 'role.deleted', resourceType: 'role', resourceId: String(id) })
  }

  listMembers(p: Principal, at: PageRequest): { items: MemberResponseT[]; total: number } {
    const page = this.deps.repos.members.page(p.organizationId, at)
    return { items: page.items.map(memberResponse), total: page.total }
  }

  updateMember(p: Principal, userId: string, roleId: number, req: RequestInfo): MemberResponseT {
    const { repos } = this.deps
    const member = repos.members.get(p.organizationId, userId)
    if (!member) throw new ApiError('not_found')
    const role = this.assignableRole(p, roleId)
    if (member.role_key === 'owner' && !this.actsAsOwner(p)) throw new ApiError('permission_denied', 'Only an owner can change an owner.')
    repos.transaction(() => {
      if (member.role_key === 'owner' && role.key !== 'owner' && repos.members.ownerCount(p.organizationId) <= 1) throw new ApiError('last_owner')
      repos.members.setRole(p.organizationId, userId, role.id)
    })
    this.deps.auditor.record(p, req, {
      action: 'member.role_changed',
      resourceType: 'member',
      resourceId: userId,
      metadata: { from: member.role_key, to: role.key },
    })
    return memberResponse(repos.members.get(p.organizationId, userId)!)
  }

  removeMember(p: Principal, userId: string, req: RequestInfo): void {
    const { repos, clock } = this.deps
    const member = repos.members.get(p.organizationId, userId)
    if (!member) throw new ApiError('not_found')
    if (member.role_key === 'owner' && !this.actsAsOwner(p)) throw new ApiError('permission_denied', 'Only an owner can remove an owner.')
    repos.transaction(() => {
      if (member.role_key === 'owner' && repos.members.ownerCount(p.organizationId) <= 1) throw new ApiError('last_owner')
      repos.members.remove(p.organizationId, userId)
      // Their sessions in this organization end now; unscoped keys they made stop at their next use
      // because keys are checked against membership on every request.
      repos.authSessions.revokeForUserInOrganization(userId, p.organizationId, 'member_removed', clock.now())
    })
    this.deps.auditor.record(p, req, {
      action: 'member.removed',
      resourceType: 'member',
      resourceId: userId,
      metadata: { email: member.email, role: member.role_key },
    })
  }

  invite(p: Principal, input: { email: string; role_id: number; locale?: Lang }, req: RequestInfo): InvitationResponseT {
    const { repos, clock } = this.deps
    const role = this.assignableRole(p, input.role_id)
    const existing = repos.users.findByEmail(input.email)
    if (existing && repos.members.get(p.organizationId, existing.id)) throw new ApiError('already_member')
    this.deps.quota.assertInviteRoom(p.organizationId, input.email)
    const now = clock.now()
    const token = randomToken(32)
    const row: Omit<InvitationRow, 'accepted_at' | 'accepted_by'> = {
      id: randomUUID(),
      organization_id: p.organizationId,
      email: input.email,
      role_id: role.id,
      token_hash: sha256Hex(token),
      invited_by: p.userId,
      created_at: now,
      expires_at: now + this.deps.invitationTtlS * 1000,
    }
    repos.invitations.replace(row)
    const org = repos.organizations.get(p.organizationId)!
    const inviter = repos.users.get(p.userId)
    this.deps.mailer.queue('invitation', input.email, input.locale ?? 'en', '/accept-invitation', token, this.deps.invitationTtlS, {
      organization: org.name,
      inviter: inviter?.name ?? 'A colleague',
    })
    this.deps.auditor.record(p, req, {
      action: 'member.invited',
      resourceType: 'invitation',
      resourceId: row.id,
      metadata: { email: input.email, role: role.key },
    })
    this.deps.bus.publish({
      type: 'member.invited',
      organizationId: p.organizationId,
      environmentId: null,
      occurredAt: now,
      data: { invitation_id: row.id, email: input.email, role: role.key, invited_by: p.userId, expires_at: iso(row.expires_at) },
    })
    return this.invitationResponse({ ...row, accepted_at: null, accepted_by: null })
  }

  listInvitations(p: Principal, at: PageRequest): { items: InvitationResponseT[]; total: number } {
    const page = this.deps.repos.invitations.pagePending(p.organizationId, this.deps.clock.now(), at)
    return { items: page.items.map((r) => this.invitationResponse(r)), total: page.total }
  }

  revokeInvitation(p: Principal, id: string, req: RequestInfo): void {
    if (!this.deps.repos.invitations.revoke(p.organizationId, id)) throw new ApiError('not_found')
    this.deps.auditor.record(p, req, { action: 'invitation.revoked', resourceType: 'invitation', resourceId: id })
  }

  /** The signed-in user joins the inviting organization, if the invitation was sent to them. */
  accept(p: Principal, token: string, req: RequestInfo): void {
    const { repos, clock } = this.deps
    const now = clock.now()
    const inv = repos.invitations.findByToken(sha256Hex(token))
    if (!inv || inv.accepted_at !== null || inv.expires_at <= now) throw new ApiError('invalid_token')
    const user = repos.users.get(p.userId)!
    if (user.email.toLowerCase() !== inv.email.toLowerCase()) throw new ApiError('invitation_email_mismatch')
    if (repos.members.get(inv.organization_id, user.id)) throw new ApiError('already_member')
    repos.transaction(() => {
      this.deps.quota.assertJoinRoom(inv.organization_id)
      if (!repos.invitations.markAccepted(inv.id, user.id, now)) throw new ApiError('invalid_token')
      repos.organizations.addMember(inv.organization_id, user.id, inv.role_id, now)
      repos.users.markVerified(user.id, now) // the token arrived by email to this address
    })
    this.deps.auditor.record({ organizationId: inv.organization_id, userId: user.id }, req, {
      action: 'invitation.accepted',
      resourceType: 'invitation',
      resourceId: inv.id,
    })
  }

  /** An owner acting as such: a bearer session or a key holding everything an owner holds. */
  private actsAsOwner(p: Principal): boolean {
    const m = this.deps.repos.members.get(p.organizationId, p.userId)
    return m?.role_key === 'owner' && PERMISSIONS.every((perm) => p.permissions.has(perm))
  }

  /** Nobody grants what they do not hold; only owners grant ownership. */
  private assertCanGrant(p: Principal, wanted: ReadonlySet<Permission>): void {
    const missing = [...wanted].filter((perm) => !p.permissions.has(perm))
    if (missing.length) throw new ApiError('permission_denied', `You cannot grant permissions you do not hold: ${missing.join(', ')}.`)
  }

  private assignableRole(p: Principal, roleId: number): RoleRow {
    const role = this.deps.repos.roles.get(p.organizationId, roleId)
    if (!role) throw new ApiError('bad_request', `role_id ${roleId} is not a role of this organization.`)
    if (role.builtin && role.id === BUILTIN_ROLE_IDS.owner && !this.actsAsOwner(p))
      throw new ApiError('permission_denied', 'Only an owner can grant ownership.')
    this.assertCanGrant(p, rolePermissions(role))
    return role
  }

  private customRole(p: Principal, id: number): RoleRow {
    const role = this.deps.repos.roles.get(p.organizationId, id)
    if (!role) throw new ApiError('not_found')
    if (role.builtin) throw new ApiError('builtin_role')
    return role
  }

  private roleResponse(r: RoleRow, memberCount: number): RoleResponseT {
    return {
      id: r.id,
      key: r.key,
      name: r.name,
      description: r.description,
      permissions: [...rolePermissions(r)],
      builtin: r.builtin === 1,
      member_count: memberCount,
    }
  }

  private invitationResponse(r: InvitationRow): InvitationResponseT {
    const role = this.deps.repos.roles.get(r.organization_id, r.role_id)!
    const inviter = r.invited_by ? this.deps.repos.users.get(r.invited_by) : undefined
    return {
      id: r.id,
      email: r.email,
      role: { id: role.id, key: role.key, name: role.name },
      invited_by: inviter ? { id: inviter.id, email: inviter.email } : null,
      created_at: iso(r.created_at),
      expires_at: iso(r.expires_at),
      status: r.accepted_at !== null ? 'accepted' : r.expires_at <= this.deps.clock.now() ? 'expired' : 'pending',
    }
  }
}

function memberResponse(m: MemberRow): MemberResponseT {
  return {
    user_id: m.user_id,
    email: m.email,
    name: m.name,
    role: { id: m.role_id, key: m.role_key, name: m.role_name },
    joined_at: iso(m.created_at),
  }
}
