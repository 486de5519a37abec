import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import {
  DEFAULT_ORGANIZATION_PAGE_LIMITS,
  OrganizationCreate,
  OrganizationListQuery,
  OrganizationResponse,
  OrganizationSessionResponse,
  OrganizationSummary,
  OrganizationSwitchRequest,
  OrganizationUpdate,
  RegionInfo,
} from './schema.js'
import type { OrganizationService } from './service.js'

const tag = 'Projects, organizations, regions'

export function organizationRoutes(orgs: OrganizationService) {
  return [
    defineRoute({
      operationId: 'organization_get',
      method: 'get',
      path: '/api/v1/organization',
      auth: 'A',
      tag,
      summary: 'The organization the caller acts in',
      status: 200,
      response: OrganizationResponse,
      handler: ({ auth }) => orgs.current(auth),
    }),
    defineRoute({
      operationId: 'organization_update',
      method: 'patch',
      path: '/api/v1/organization',
      auth: 'A',
      permission: 'organization:write',
      tag,
      summary: 'Rename the organization or change its default environment',
      audit: { action: 'organization.updated', resource: 'organization' },
      body: OrganizationUpdate,
      status: 200,
      response: OrganizationResponse,
      handler: ({ auth, body }) => orgs.update(auth, body),
    }),
    defineRoute({
      operationId: 'organizations_list',
      method: 'get',
      path: '/api/v1/organizations',
      auth: 'A',
      tag,
      summary: "The caller's organizations, joined earliest first",
      description: pagingDescription(DEFAULT_ORGANIZATION_PAGE_LIMITS),
      query: OrganizationListQuery,
      status: 200,
      response: z.array(OrganizationSummary),
      handler: ({ auth, query, req }) => arrayPage(req, orgs.list(auth, query), query),
    }),
    defineRoute({
      operationId: 'organizations_create',
      method: 'post',
      path: '/api/v1/organizations',
      auth: 'S',
      tag,
      summary: 'Create an organization (you become its owner) and a session in it',
      audit: 'service',
      body: OrganizationCreate,
      status: 201,
      response: OrganizationSessionResponse,
      handler: ({ auth, body, req }) => orgs.create(auth, body.name, req),
    }),
    defineRoute({
      operationId: 'organizations_switch',
      method: 'post',
      path: '/api/v1/organizations/switch',
      auth: 'S',
      tag,
      summary: 'Get a session in another of your organizations',
      audit: 'service',
      body: OrganizationSwitchRequest,
      status: 200,
      response: OrganizationSessionResponse,
      errors: ['not_found'],
      handler: ({ auth, body, req }) => orgs.switchTo(auth, body.organization_id, req),
    }),
    defineRoute({
      operationId: 'regions_list',
      method: 'get',
      path: '/api/v1/regions',
      auth: 'P',
      tag,
      summary: 'Regions this deployment serves (OZAN_REGIONS)',
      status: 200,
      response: z.array(RegionInfo),
      handler: ({ req }) => orgs.regionList(req.host),
    }),
  ]
}
