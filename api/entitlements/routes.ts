import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { EntitlementsResponse, FlagPath, FlagResponse, FlagsResponse, FlagToggle, FlagUpsert, PlanResponse } from './schema.js'
import type { EntitlementService } from './service.js'

const tag = 'Entitlements and flags'
const BASE = '/api/v1/entitlements'

/**
 * Plans are the server's catalog and flags are read by the product's clients, so any member reads
 * them; the organization's usage is billing data (billing:read, in org:read); changing a flag is an
 * organization setting (organization:write, in org:manage).
 */
export function entitlementRoutes(entitlements: EntitlementService) {
  return [
    defineRoute({
      operationId: 'entitlements_plans',
      method: 'get',
      path: `${BASE}/plans`,
      auth: 'A',
      tag,
      summary: 'The plans this server offers (defined by its operator)',
      status: 200,
      response: z.array(PlanResponse),
      handler: () => entitlements.plans(),
    }),
    defineRoute({
      operationId: 'entitlements_get',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'billing:read',
      tag,
      summary: "The organization's plan, its effective limits and its usage against each",
      status: 200,
      response: EntitlementsResponse,
      handler: ({ auth }) => entitlements.entitlements(auth),
    }),
    defineRoute({
      operationId: 'entitlements_flags',
      method: 'get',
      path: `${BASE}/flags`,
      auth: 'A',
      tag,
      summary: "The organization's feature flags: key → on or off",
      status: 200,
      response: FlagsResponse,
      handler: ({ auth }) => entitlements.flags(auth),
    }),
    defineRoute({
      operationId: 'entitlements_flags_upsert',
      method: 'post',
      path: `${BASE}/flags`,
      auth: 'A',
      permission: 'organization:write',
      tag,
      summary: 'Create or change a feature flag',
      description: 'At most 100 flags per organization (409 flag_limit). Audited as feature_flag.set.',
      audit: 'service',
      body: FlagUpsert,
      status: 201,
      response: FlagResponse,
      errors: ['flag_limit'],
      handler: ({ auth, body, req }) => entitlements.upsert(auth, body, req),
    }),
    defineRoute({
      operationId: 'entitlements_flags_toggle',
      method: 'post',
      path: `${BASE}/flags/{key}/toggle`,
      auth: 'A',
      permission: 'organization:write',
      tag,
      summary: 'Set a flag on or off, or flip it (enabled left out)',
      description: 'The flag must exist: one the organization set, or a product flag (404 otherwise). Audited as feature_flag.set.',
      audit: 'service',
      params: FlagPath,
      body: FlagToggle,
      status: 200,
      response: FlagResponse,
      errors: ['not_found', 'flag_limit'],
      handler: ({ auth, params, body, req }) => entitlements.toggle(auth, params.key, body, req),
    }),
  ]
}
