import { randomUUID } from 'node:crypto'
import type { Reply, TestApp } from './app.js'

/** A signed-in user acting in one organization. */
export interface Actor {
  token: string
  refreshToken: string
  userId: string
  email: string
  organizationId: string
}

let seq = 0
export const uniqueEmail = (label = 'user') => `${label}-${++seq}-${randomUUID().slice(0, 8)}@example.com`

/** Registers a user; they own a fresh organization. */
export async function newOwner(a: TestApp, email = uniqueEmail('owner')): Promise<Actor> {
  const r = await a.register(email)
  return { token: r.access_token, refreshToken: r.refresh_token, userId: r.user.id, email, organizationId: r.user.organization.id }
}

/** The body of a reply that must have the given status; otherwise throws naming the request. */
export function expectStatus<T = any>(res: Reply, status: number, what: string): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`)
  return res.body as T
}

/** Creates an API key in the actor's organization; unscoped unless scopes are given. */
export async function createKey(a: TestApp, as: Actor, scopes?: string[]): Promise<{ id: string; key: string }> {
  const res = await a.request('POST', '/api/v1/api-keys', { token: as.token, body: { name: `key ${++seq}`, ...(scopes && { scopes }) } })
  return expectStatus(res, 201, 'create API key')
}

/** The token of the newest invitation mailed to an address. */
export function invitationToken(a: TestApp, email: string): string {
  const mail = a.services.repos.mailOutbox.forRecipient(email).filter((m) => m.kind === 'invitation').at(-1)
  const m = mail && /token=([^\s&]+)/.exec(mail.body_text)
  if (!m) throw new Error(`no invitation mail for ${email}`)
  return decodeURIComponent(m[1]!)
}

/** Invites a new user into `org` with a role (viewer by default) and lets them accept. */
export async function addMember(a: TestApp, org: Actor, roleId = 4): Promise<Actor> {
  const member = await newOwner(a, uniqueEmail('member'))
  expectStatus(await a.request('POST', '/api/v1/rbac/invitations', { token: org.token, body: { email: member.email, role_id: roleId } }), 201, 'invite')
  const token = invitationToken(a, member.email)
  expectStatus(await a.request('POST', '/api/v1/rbac/invitations/accept', { token: member.token, body: { token } }), 204, 'accept invitation')
  // The member's session is bound to their own organization; switch into the inviting one.
  const sw = await a.request('POST', '/api/v1/organizations/switch', { token: member.token, body: { organization_id: org.organizationId } })
  const session = expectStatus(sw, 200, 'switch organization')
  return { ...member, token: session.access_token, refreshToken: session.refresh_token, organizationId: org.organizationId }
}

/**
 * One entry per path-parameter name the router uses. `create` makes a real resource of that kind
 * in the actor's organization and returns its id as it goes in the path; `unknown` returns a
 * well-formed id that names nothing; `exists` tells, as the owning organization sees it, whether
 * the resource is still there (so a foreign DELETE that answers 404 but acted anyway is caught).
 * A route with a parameter missing here fails the BOLA matrix: add its entry with the route.
 */
export interface ParamFixture {
  create(a: TestApp, owner: Actor): Promise<string>
  unknown(): string
  exists(a: TestApp, owner: Actor, id: string): Promise<boolean>
}

const listHas = async (a: TestApp, owner: Actor, path: string, id: string, field = 'id') => {
  const list = expectStatus<Record<string, unknown>[]>(await a.request('GET', path, { token: owner.token }), 200, `GET ${path}`)
  return list.some((x) => String(x[field]) === id)
}

export const PARAM_FIXTURES: Record<string, ParamFixture> = {
  key_id: {
    create: async (a, owner) => (await createKey(a, owner)).id,
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/api-keys', id),
  },
  role_id: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/rbac/roles', { token: owner.token, body: { name: `Role ${++seq}`, permissions: ['agents:read'] } })
      return String(expectStatus(res, 201, 'create role').id)
    },
    // Integer ids: far above any role a test creates, within the path schema's range.
    unknown: () => String(1_000_000_000 + Math.floor(Math.random() * 1_000_000)),
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/roles', id),
  },
  user_id: {
    create: async (a, owner) => (await addMember(a, owner)).userId,
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/members', id, 'user_id'),
  },
  project_uuid: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: `Project ${++seq}` } })
      return expectStatus(res, 201, 'create project').id
    },
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/projects', id),
  },
  invitation_id: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/rbac/invitations', { token: owner.token, body: { email: uniqueEmail('invitee'), role_id: 4 } })
      return expectStatus(res, 201, 'create invitation').id
    },
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/invitations', id),
  },
}

/**
 * A valid request for each route that cannot be called bare, keyed by operationId (or
 * "METHOD /koa/path" for a router layer that is not a route definition). Validation runs before
 * the handler, so without a valid body (query, headers) a foreign id would be answered 422 and
 * prove nothing.
 */
export interface RequestSample {
  body?: unknown
  query?: Record<string, string>
  headers?: Record<string, string>
}

export const REQUEST_SAMPLES: Record<string, RequestSample> = {
  rbac_roles_update: { body: { name: 'Renamed role' } },
  rbac_members_update: { body: { role_id: 4 } },
}
