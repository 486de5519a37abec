import type { EnvironmentRow, Repos } from '../../db/index.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The spec's environment selection: `X-Environment-Id` takes dev, staging, prod (in the default
 * project) or the uuid of any environment of the caller's organization. Absent or unrecognised —
 * including another organization's uuid — falls back to the organization's default environment.
 */
export function resolveEnvironment(repos: Repos, organizationId: string, header: string | undefined): EnvironmentRow {
  const value = header?.trim().toLowerCase()
  let env: EnvironmentRow | undefined
  if (value === 'dev' || value === 'staging' || value === 'prod') {
    env = repos.projects.defaultProjectEnvironment(organizationId, value)
  } else if (value && UUID.test(value)) {
    env = repos.projects.environment(organizationId, value)
  }
  if (env) return env
  const org = repos.organizations.get(organizationId)
  const fallback = repos.projects.defaultProjectEnvironment(organizationId, org?.default_environment ?? 'dev')
  if (!fallback) throw new Error(`organization ${organizationId} has no default environment`)
  return fallback
}
