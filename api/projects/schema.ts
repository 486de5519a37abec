import { z } from 'zod'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

export const EnvironmentResponse = z
  .object({
    id: z.uuid(),
    slug: z.enum(['dev', 'staging', 'prod']),
    name: z.string(),
    project_id: z.uuid(),
    is_default: z.boolean().describe("The organization's default environment."),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'EnvironmentResponse' })

export const ProjectResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    is_default: z.boolean().describe('dev, staging and prod in X-Environment-Id refer to the default project.'),
    environments: z.array(EnvironmentResponse),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'ProjectResponse' })

export const ProjectCreate = z.object({ name: z.string().trim().min(1).max(100) }).meta({ id: 'ProjectCreate' })
export const ProjectPath = z.object({ project_uuid: z.uuid() })
export const DEFAULT_PROJECT_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const ProjectListQuery = z.object({ ...pageQuery(DEFAULT_PROJECT_PAGE_LIMITS) })
