import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import {
  AcceptInviteRequest,
  DEFAULT_RBAC_PAGE_LIMITS,
  InvitationPath,
  InvitationResponse,
  InviteRequest,
  MemberPath,
  MemberResponse,
  MemberUpdate,
  PermissionInfo,
  RbacListQuery,
  RoleCreate,
  RolePath,
  RoleResponse,
  RoleUpdate,
} from './schema.js'
import type { RbacService } from './service.js'

const tag = 'Roles, members, invitations'

export function rbacRoutes(rbac: RbacService) {
  return [
    defineRoute({
      operationId: 'rbac_permissions', method: 'get', path: '/api/v1/rbac/permissions', auth: 'A', tag,
      summary: 'The permission catalog (resource × action) for the custom-role editor',
      status: 200, response: z.array(PermissionInfo),
      handler: () => rbac.permissions(),
    }),
    defineRoute({
      operationId: 'rbac_roles_list', method: 'get', path: '/api/v1/rbac/roles', auth: 'A', permission: 'roles:read', tag,
      summary: 'Built-in roles, then custom roles by id', description: pagingDescription(DEFAULT_RBAC_PAGE_LIMITS),
      query: RbacListQuery, status: 200, response: z.array(RoleResponse),
      handler: ({ auth, query, req }) => arrayPage(req, rbac.listRoles(auth, query), query),
    }),
    defineRoute({
      operationId: 'rbac_roles_create', method: 'post', path: '/api/v1/rbac/roles', auth: 'A', permission: 'roles:write', tag,
      summary: 'Create a custom role (only with permissions you hold)', audit: 'service',
      body: RoleCreate, status: 201, response: RoleResponse, errors: ['role_exists'],
      handler: ({ auth, body, req }) => rbac.createRole(auth, body, req),
    }),
    defineRoute({
      operationId: 'rbac_roles_update', method: 'patch', path: '/api/v1/rbac/roles/{role_id}', auth: 'A', permission: 'roles:write', tag,
      summary: 'Change a custom role', audit: 'service',
      params: RolePath, body: RoleUpdate, status: 200, response: RoleResponse, errors: ['not_found', 'builtin_role', 'role_exists'],
      handler: ({ auth, params, body, req }) => rbac.updateRole(auth, params.role_id, body, req),
    }),
    defineRoute({
      operationId: 'rbac_roles_delete', method: 'delete', path: '/api/v1/rbac/roles/{role_id}', auth: 'A', permission: 'roles:write', tag,
      summary: 'Delete a custom role that nobody holds', audit: 'service',
      params: RolePath, status: 204, errors: ['not_found', 'builtin_role', 'role_in_use'],
      handler: ({ auth, params, req }) => rbac.deleteRole(auth, params.role_id, req),
    }),
    defineRoute({
      operationId: 'rbac_members_list', method: 'get', path: '/api/v1/rbac/members', auth: 'A', permission: 'members:read', tag,
      summary: 'Members of the organization, longest-standing first', description: pagingDescription(DEFAULT_RBAC_PAGE_LIMITS),
      query: RbacListQuery, status: 200, response: z.array(MemberResponse),
      handler: ({ auth, query, req }) => arrayPage(req, rbac.listMembers(auth, query), query),
    }),
    defineRoute({
      operationId: 'rbac_members_update', method: 'patch', path: '/api/v1/rbac/members/{user_id}', auth: 'A', permission: 'members:write', tag,
      summary: "Change a member's role", description: 'Only owners change owners; the last owner cannot be demoted (409 last_owner).', audit: 'service',
      params: MemberPath, body: MemberUpdate, status: 200, response: MemberResponse, errors: ['not_found', 'last_owner', 'bad_request'],
      handler: ({ auth, params, body, req }) => rbac.updateMember(auth, params.user_id, body.role_id, req),
    }),
    defineRoute({
      operationId: 'rbac_members_remove', method: 'delete', path: '/api/v1/rbac/members/{user_id}', auth: 'A', permission: 'members:write', tag,
      summary: 'Remove a member; their sessions and unscoped API keys stop working at once', audit: 'service',
      params: MemberPath, status: 204, errors: ['not_found', 'last_owner'],
      handler: ({ auth, params, req }) => rbac.removeMember(auth, params.user_id, req),
    }),
    defineRoute({
      operationId: 'rbac_invitations_create', method: 'post', path: '/api/v1/rbac/invitations', auth: 'A', permission: 'members:write', tag,
      summary: 'Invite someone by email (emits member.invited)',
      description: 'The emailed token is single use and expires after 7 days. Re-inviting a pending email replaces the earlier invitation.',
      audit: 'service', body: InviteRequest, status: 201, response: InvitationResponse, errors: ['already_member', 'bad_request'],
      handler: ({ auth, body, req }) => rbac.invite(auth, body, req),
    }),
    defineRoute({
      operationId: 'rbac_invitations_list', method: 'get', path: '/api/v1/rbac/invitations', auth: 'A', permission: 'members:read', tag,
      summary: 'Pending invitations, newest first', description: pagingDescription(DEFAULT_RBAC_PAGE_LIMITS),
      query: RbacListQuery, status: 200, response: z.array(InvitationResponse),
      handler: ({ auth, query, req }) => arrayPage(req, rbac.listInvitations(auth, query), query),
    }),
    defineRoute({
      operationId: 'rbac_invitations_revoke', method: 'delete', path: '/api/v1/rbac/invitations/{invitation_id}', auth: 'A', permission: 'members:write', tag,
      summary: 'Withdraw a pending invitation', audit: 'service',
      params: InvitationPath, status: 204, errors: ['not_found'],
      handler: ({ auth, params, req }) => rbac.revokeInvitation(auth, params.invitation_id, req),
    }),
    defineRoute({
      operationId: 'rbac_invitations_accept', method: 'post', path: '/api/v1/rbac/invitations/accept', auth: 'A', tag,
      summary: 'Join the inviting organization (the signed-in email must match the invitation)', audit: 'service',
      body: AcceptInviteRequest, status: 204, errors: ['invalid_token', 'invitation_email_mismatch', 'already_member'],
      handler: ({ auth, body, req }) => rbac.accept(auth, body.token, req),
    }),
  ]
}
