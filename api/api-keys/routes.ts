import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import { ApiKeyCreate, ApiKeyCreatedResponse, ApiKeyListQuery, ApiKeyPath, ApiKeyResponse, DEFAULT_API_KEY_PAGE_LIMITS } from './schema.js'
import type { ApiKeyService } from './service.js'

const tag = 'API keys'

export function apiKeyRoutes(keys: ApiKeyService) {
  return [
    defineRoute({
      operationId: 'api_keys_create',
      method: 'post',
      path: '/api/v1/api-keys',
      auth: 'A',
      permission: 'api_keys:write',
      tag,
      summary: 'Create an API key; the secret is in this response only',
      audit: { action: 'api_key.created', resource: 'api_key' },
      body: ApiKeyCreate,
      status: 201,
      response: ApiKeyCreatedResponse,
      errors: ['invalid_scope'],
      handler: ({ auth, body }) => keys.create(auth, body),
    }),
    defineRoute({
      operationId: 'api_keys_list',
      method: 'get',
      path: '/api/v1/api-keys',
      auth: 'A',
      permission: 'api_keys:read',
      tag,
      summary: "The organization's API keys (never their secrets), newest first",
      description: pagingDescription(DEFAULT_API_KEY_PAGE_LIMITS),
      query: ApiKeyListQuery,
      status: 200,
      response: z.array(ApiKeyResponse),
      handler: ({ auth, query, req }) => arrayPage(req, keys.list(auth, query), query),
    }),
    defineRoute({
      operationId: 'api_keys_delete',
      method: 'delete',
      path: '/api/v1/api-keys/{key_id}',
      auth: 'A',
      permission: 'api_keys:write',
      tag,
      summary: 'Delete an API key; it stops working at once',
      audit: { action: 'api_key.deleted', resource: 'api_key' },
      params: ApiKeyPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => keys.delete(auth, params.key_id),
    }),
  ]
}
