import type { Permission } from '../rbac/index.js'

/** Who is calling, resolved once per request by the authenticator. */
export interface Principal {
  kind: 'user' | 'api_key'
  userId: string
  organizationId: string
  /** The dashboard session (refresh-token family) behind a bearer token. */
  sessionId: string | null
  apiKeyId: string | null
  permissions: ReadonlySet<Permission>
}
