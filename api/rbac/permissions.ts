/**
 * The permission model: a permission is `resource:action`. Routes check one permission each;
 * roles and API-key scopes are sets of permissions. The spec's scope table fixes what each of its
 * 11 scopes allows; SCOPE_PERMISSIONS below follows it line by line.
 */

export const RESOURCES = {
  agents: ['read', 'write', 'publish', 'run'],
  sessions: ['read'],
  calls: ['read'],
  analytics: ['read'],
  knowledge_base: ['read', 'write'],
  phone_numbers: ['read', 'write'],
  sip_trunks: ['read', 'write'],
  tools: ['read', 'write'],
  campaigns: ['read', 'write'],
  do_not_call: ['read', 'write'],
  integrations: ['read', 'write'],
  automations: ['read', 'write'],
  webhooks: ['read', 'write'],
  credentials: ['read', 'write'],
  organization: ['write'],
  api_keys: ['read', 'write'],
  billing: ['read', 'write'],
  members: ['read', 'write'],
  roles: ['read', 'write'],
  audit: ['read'],
  request_logs: ['read'],
} as const

type Resource = keyof typeof RESOURCES
export type Permission = { [R in Resource]: `${R}:${(typeof RESOURCES)[R][number]}` }[Resource]

export const PERMISSIONS: readonly Permission[] = Object.entries(RESOURCES).flatMap(([resource, actions]) =>
  actions.map((action) => `${resource}:${action}` as Permission),
)

export const SCOPES = [
  'workflow:read',
  'workflow:write',
  'workflow:publish',
  'workflow:run',
  'knowledge_base:read',
  'knowledge_base:write',
  'org:read',
  'org:manage',
  'member:read',
  'member:manage',
  'role:manage',
] as const
export type Scope = (typeof SCOPES)[number]

export const SCOPE_PERMISSIONS: Record<Scope, readonly Permission[]> = {
  // "View agents, sessions, calls and analytics"
  'workflow:read': ['agents:read', 'sessions:read', 'calls:read', 'analytics:read'],
  // "Create and edit agents"
  'workflow:write': ['agents:write'],
  // "Publish and promote agents"
  'workflow:publish': ['agents:publish'],
  // "Run agents: start calls and sessions, mint web-call and chat tokens"
  'workflow:run': ['agents:run'],
  'knowledge_base:read': ['knowledge_base:read'],
  'knowledge_base:write': ['knowledge_base:write'],
  // "View phone numbers, tools, campaigns, the do-not-call list, integrations, automations and
  // webhook endpoints" (stored credentials are part of integrations; plans and usage of billing)
  'org:read': [
    'phone_numbers:read',
    'sip_trunks:read',
    'tools:read',
    'campaigns:read',
    'do_not_call:read',
    'integrations:read',
    'automations:read',
    'webhooks:read',
    'credentials:read',
    'billing:read',
  ],
  // "Change those, and organization settings, API keys and billing"
  'org:manage': [
    'phone_numbers:write',
    'sip_trunks:write',
    'tools:write',
    'campaigns:write',
    'do_not_call:write',
    'integrations:write',
    'automations:write',
    'webhooks:write',
    'credentials:write',
    'organization:write',
    'api_keys:write',
    'billing:write',
  ],
  // "View members, the audit trail, API keys and API request logs" (and the roles they hold)
  'member:read': ['members:read', 'roles:read', 'audit:read', 'api_keys:read', 'request_logs:read'],
  // "Invite and manage members"
  'member:manage': ['members:write'],
  // "Manage roles"
  'role:manage': ['roles:write'],
}

export function permissionsOfScopes(scopes: readonly Scope[]): Set<Permission> {
  return new Set(scopes.flatMap((s) => SCOPE_PERMISSIONS[s]))
}

export const BUILTIN_ROLE_IDS = { owner: 1, admin: 2, developer: 3, viewer: 4 } as const
export type BuiltinRole = keyof typeof BUILTIN_ROLE_IDS

export const BUILTIN_ROLE_PERMISSIONS: Record<BuiltinRole, ReadonlySet<Permission>> = {
  owner: new Set(PERMISSIONS),
  admin: new Set(PERMISSIONS),
  developer: permissionsOfScopes([
    'workflow:read',
    'workflow:write',
    'workflow:publish',
    'workflow:run',
    'knowledge_base:read',
    'knowledge_base:write',
    'org:read',
    'member:read',
  ]),
  viewer: permissionsOfScopes(['workflow:read', 'knowledge_base:read', 'org:read', 'member:read']),
}

const RESOURCE_LABELS: Record<Resource, string> = {
  agents: 'agents (workflows)',
  sessions: 'sessions and runs',
  calls: 'calls',
  analytics: 'analytics',
  knowledge_base: 'the knowledge base',
  phone_numbers: 'phone numbers',
  sip_trunks: 'SIP trunks',
  tools: 'tools',
  campaigns: 'campaigns',
  do_not_call: 'the do-not-call list',
  integrations: 'integrations',
  automations: 'automations',
  webhooks: 'webhook endpoints and deliveries',
  credentials: 'provider credentials',
  organization: 'organization settings and projects',
  api_keys: 'API keys',
  billing: 'billing',
  members: 'members and invitations',
  roles: 'roles',
  audit: 'the audit trail',
  request_logs: 'API request logs',
}

const ACTION_LABELS: Record<string, string> = {
  read: 'View',
  write: 'Create, change and delete',
  publish: 'Publish and promote',
  run: 'Run (start calls and sessions, mint web-call tokens)',
}

export function describePermission(p: Permission): { resource: string; action: string; description: string; scopes: Scope[] } {
  const [resource, action] = p.split(':') as [Resource, string]
  return {
    resource,
    action,
    description: `${ACTION_LABELS[action] ?? action} ${RESOURCE_LABELS[resource]}`,
    scopes: SCOPES.filter((s) => SCOPE_PERMISSIONS[s].includes(p)),
  }
}

const KNOWN = new Set<string>(PERMISSIONS)

/** A role's permissions now: built-in roles from code, custom roles from their stored list. */
export function rolePermissions(role: { builtin: number; key: string; permissions: string }): ReadonlySet<Permission> {
  if (role.builtin) return BUILTIN_ROLE_PERMISSIONS[role.key as BuiltinRole] ?? new Set()
  return new Set((JSON.parse(role.permissions) as string[]).filter((p): p is Permission => KNOWN.has(p)))
}
