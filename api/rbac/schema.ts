import { z } from 'zod'
import { Email } from '../auth/schema.js'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'
import { PERMISSIONS, SCOPES, type Permission } from './permissions.js'

const PermissionName = z.enum(PERMISSIONS as [Permission, ...Permission[]])
const unique = <T>(list: T[]) => new Set(list).size === list.length

export const PermissionInfo = z
  .object({
    key: PermissionName,
    resource: z.string(),
    action: z.string(),
    description: z.string(),
    scopes: z.array(z.enum(SCOPES)).describe('API-key scopes that grant this permission.'),
  })
  .meta({ id: 'PermissionInfo' })

export const RoleRef = z.object({ id: z.number().int(), key: z.string(), name: z.string() }).meta({ id: 'RoleRef' })

export const RoleResponse = z
  .object({
    id: z.number().int(),
    key: z.string(),
    name: z.string(),
    description: z.string(),
    permissions: z.array(PermissionName),
    builtin: z.boolean().describe('Built-in roles cannot be edited or deleted.'),
    member_count: z.number().int(),
  })
  .meta({ id: 'RoleResponse' })

export const RoleCreate = z
  .object({
    name: z.string().trim().min(1).max(60),
    description: z.string().max(500).default(''),
    permissions: z.array(PermissionName).max(PERMISSIONS.length).refine(unique, 'Permissions must not repeat'),
  })
  .meta({ id: 'RoleCreate' })

export const RoleUpdate = z
  .object({
    name: z.string().trim().min(1).max(60).optional(),
    description: z.string().max(500).optional(),
    permissions: z.array(PermissionName).max(PERMISSIONS.length).refine(unique, 'Permissions must not repeat').optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'Give at least one field to change')
  .meta({ id: 'RoleUpdate' })

export const RolePath = z.object({
  role_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31),
})

export const MemberResponse = z
  .object({
    user_id: z.uuid(),
    email: z.string(),
    name: z.string(),
    role: RoleRef,
    joined_at: z.iso.datetime(),
  })
  .meta({ id: 'MemberResponse' })

export const MemberUpdate = z.object({ role_id: z.number().int().min(1) }).meta({ id: 'MemberUpdate' })
export const MemberPath = z.object({ user_id: z.uuid() })

export const InviteRequest = z.object({ email: Email, role_id: z.number().int().min(1), locale: z.enum(['en', 'tr']).optional() }).meta({ id: 'InviteRequest' })

export const InvitationResponse = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: RoleRef,
    invited_by: z.object({ id: z.uuid(), email: z.string() }).nullable(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    status: z.enum(['pending', 'accepted', 'expired']),
  })
  .meta({ id: 'InvitationResponse' })

export const InvitationPath = z.object({ invitation_id: z.uuid() })
/** Roles, members and invitations share one page size. */
export const DEFAULT_RBAC_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const RbacListQuery = z.object({ ...pageQuery(DEFAULT_RBAC_PAGE_LIMITS) })

export const AcceptInviteRequest = z.object({ token: z.string().min(16).max(256) }).meta({ id: 'AcceptInviteRequest' })

export type RoleResponseT = z.output<typeof RoleResponse>
export type MemberResponseT = z.output<typeof MemberResponse>
export type InvitationResponseT = z.output<typeof InvitationResponse>
