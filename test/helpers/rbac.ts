// Helpers shared by the rbac tests (not a test file: tap includes only *.test.ts).
import { startTestApp, type Reply, type TestApp, type TestAppOptions } from './app.js'

export const RBAC = '/api/v1/rbac'
export const ROLE = { owner: 1, admin: 2, developer: 3, viewer: 4 } as const
export const PASSWORD = 'correct horse battery'

let counter = 0
export const freshEmail = (tag = 'user') => `${tag}${++counter}-${Date.now()}@example.com`

export interface Actor {
  userId: string
  email: string
  token: string
  organizationId: string
}

/** A running app whose first user owns an organization; closed when the test ends. */
export async function setup(t: { teardown(fn: () => unknown): void }, options: TestAppOptions = {}) {
  const a = await startTestApp(options)
  t.teardown(() => a.close())
  const owner = actorOf(await a.register(freshEmail('owner')))
  return { a, owner }
}

/** The actor a TokenResponse (register, login) signs in, in the organization it is bound to. */
export function actorOf(tokens: { access_token: string; user: { id: string; email: string; organization: { id: string } } }): Actor {
  return { userId: tokens.user.id, email: tokens.user.email, token: tokens.access_token, organizationId: tokens.user.organization.id }
}

/** The token of the newest invitation mailed to an address (link `/accept-invitation?token=…`). */
export function invitationToken(a: TestApp, email: string): string {
  const last = a.services.repos.mailOutbox
    .forRecipient(email)
    .filter((m) => m.kind === 'invitation')
    .at(-1)
  if (!last) throw new Error(`no invitation mail for ${email}`)
  const m = /\/accept-invitation\?token=([^\s&]+)/.exec(last.body_text)
  if (!m) throw new Error('no invitation link in the mail')
  return decodeURIComponent(m[1]!)
}

export async function invite(a: TestApp, by: Actor, email: string, roleId: number): Promise<Reply> {
  return a.request('POST', `${RBAC}/invitations`, { token: by.token, body: { email, role_id: roleId } })
}

export async function login(a: TestApp, email: string): Promise<string> {
  const res = await a.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`)
  return res.body.access_token
}

/** Registers someone, invites them into `by`'s organization with a role, accepts, and switches there. */
export async function addMember(a: TestApp, by: Actor, roleId: number, tag = 'member'): Promise<Actor> {
  const email = freshEmail(tag)
  const reg = await a.register(email)
  const inv = await invite(a, by, email, roleId)
  if (inv.status !== 201) throw new Error(`invite failed: ${inv.status} ${inv.text}`)
  const acc = await a.request('POST', `${RBAC}/invitations/accept`, { token: reg.access_token, body: { token: invitationToken(a, email) } })
  if (acc.status !== 204) throw new Error(`accept failed: ${acc.status} ${acc.text}`)
  const sw = await a.request('POST', '/api/v1/organizations/switch', { token: reg.access_token, body: { organization_id: by.organizationId } })
  if (sw.status !== 200) throw new Error(`switch failed: ${sw.status} ${sw.text}`)
  return { userId: reg.user.id, email, token: sw.body.access_token, organizationId: by.organizationId }
}

export async function createKey(a: TestApp, by: Actor, scopes?: string[]): Promise<string> {
  const res = await a.request('POST', '/api/v1/api-keys', { token: by.token, body: { name: 'k', ...(scopes ? { scopes } : {}) } })
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`)
  return res.body.key
}

export async function createRole(a: TestApp, by: Actor, name: string, permissions: string[]): Promise<Reply> {
  return a.request('POST', `${RBAC}/roles`, { token: by.token, body: { name, permissions } })
}

/** The audit trail of the caller's organization, filtered by action. */
export async function auditOf(a: TestApp, by: Actor, action: string): Promise<Array<Record<string, any>>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await a.request('GET', `/api/v1/audit?action=${encodeURIComponent(action)}&limit=200`, { token: by.token })
  if (res.status !== 200) throw new Error(`audit failed: ${res.status} ${res.text}`)
  return res.body
}

/** The raw response text with its request id blanked, for byte-identical comparisons of 404s. */
export const withoutRequestId = (r: Reply) => r.text.replaceAll(String(r.body?.error?.request_id), '<request_id>')

export const code = (r: Reply) => r.body?.error?.code as string | undefined
