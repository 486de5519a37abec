import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import { DEFAULT_PROJECT_PAGE_LIMITS, EnvironmentResponse, ProjectCreate, ProjectListQuery, ProjectPath, ProjectResponse } from './schema.js'
import type { ProjectService } from './service.js'

const tag = 'Projects, organizations, regions'

export function projectRoutes(projects: ProjectService) {
  return [
    defineRoute({
      operationId: 'projects_list',
      method: 'get',
      path: '/api/v1/projects',
      auth: 'A',
      tag,
      summary: "The organization's projects with their environments, the default one first",
      description: pagingDescription(DEFAULT_PROJECT_PAGE_LIMITS),
      query: ProjectListQuery,
      status: 200,
      response: z.array(ProjectResponse),
      handler: ({ auth, query, req }) => arrayPage(req, projects.list(auth, query), query),
    }),
    defineRoute({
      operationId: 'projects_create',
      method: 'post',
      path: '/api/v1/projects',
      auth: 'A',
      permission: 'organization:write',
      tag,
      summary: 'Create a project; it gets dev, staging and prod environments',
      audit: { action: 'project.created', resource: 'project' },
      body: ProjectCreate,
      status: 201,
      response: ProjectResponse,
      handler: ({ auth, body }) => projects.create(auth, body.name),
    }),
    defineRoute({
      operationId: 'projects_environments',
      method: 'get',
      path: '/api/v1/projects/{project_uuid}/environments',
      auth: 'A',
      tag,
      summary: "A project's environments",
      params: ProjectPath,
      status: 200,
      response: z.array(EnvironmentResponse),
      errors: ['not_found'],
      handler: ({ auth, params }) => projects.environments(auth, params.project_uuid),
    }),
  ]
}
