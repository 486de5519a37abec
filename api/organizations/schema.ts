import { z } from 'zod'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'
import { TokenResponse } from '../auth/schema.js'

const EnvironmentSlug = z.enum(['dev', 'staging', 'prod'])

export const OrganizationResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    default_environment: EnvironmentSlug.describe('Used when a request has no (or an unrecognised) X-Environment-Id.'),
    role: z.string().nullable().describe("The caller's role key here."),
    member_count: z.number().int(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'OrganizationResponse' })

export const OrganizationUpdate = z
  .object({ name: z.string().trim().min(1).max(100).optional(), default_environment: EnvironmentSlug.optional() })
  .refine((v) => v.name !== undefined || v.default_environment !== undefined, 'Give at least one field to change')
  .meta({ id: 'OrganizationUpdate' })

export const OrganizationSummary = z.object({ id: z.uuid(), name: z.string(), role: z.string(), current: z.boolean() }).meta({ id: 'OrganizationSummary' })

export const OrganizationCreate = z.object({ name: z.string().trim().min(1).max(100) }).meta({ id: 'OrganizationCreate' })

export const OrganizationSwitchRequest = z.object({ organization_id: z.uuid() }).meta({ id: 'OrganizationSwitchRequest' })

export const OrganizationSessionResponse = TokenResponse.extend({
  organization: OrganizationResponse,
}).meta({ id: 'OrganizationSessionResponse', description: 'A new dashboard session bound to the organization, plus that organization.' })

export const RegionInfo = z.object({ id: z.string(), name: z.string(), api_url: z.string(), current: z.boolean() }).meta({ id: 'RegionInfo' })

export type OrganizationResponseT = z.output<typeof OrganizationResponse>

export const DEFAULT_ORGANIZATION_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const OrganizationListQuery = z.object({ ...pageQuery(DEFAULT_ORGANIZATION_PAGE_LIMITS) })
