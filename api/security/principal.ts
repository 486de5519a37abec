import type { Permission } from '../rbac/index.js'

export type EnvironmentSlug = 'dev' | 'staging' | 'prod'

/** Who is calling, resolved once per request by the authenticator. */
export interface Principal {
  kind: 'user' | 'api_key'
  userId: string
  organizationId: string
  /** The environment the request acts in (X-Environment-Id, else the organization's default). */
  environmentId: string
  environment: EnvironmentSlug
  projectId: string
  /** The dashboard session (refresh-token family) behind a bearer token. */
  sessionId: string | null
  apiKeyId: string | null
  permissions: ReadonlySet<Permission>
}
