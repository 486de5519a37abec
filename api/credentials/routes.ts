import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { CredentialPath, CredentialResponse, CredentialUpsert } from './schema.js'
import type { CredentialService } from './service.js'

const tag = 'Credentials'

/** Organization-wide (not per environment): one credential per provider. */
export function credentialRoutes(credentials: CredentialService) {
  return [
    defineRoute({
      operationId: 'credentials_list',
      method: 'get',
      path: '/api/v1/credentials',
      auth: 'A',
      permission: 'credentials:read',
      tag,
      summary: "The organization's provider credentials, secrets masked",
      status: 200,
      response: z.array(CredentialResponse),
      handler: ({ auth }) => credentials.list(auth),
    }),
    defineRoute({
      operationId: 'credentials_upsert',
      method: 'put',
      path: '/api/v1/credentials',
      auth: 'A',
      permission: 'credentials:write',
      tag,
      summary: "Store or replace the organization's credential for a provider",
      description: 'The fields each provider takes are listed in the request schema. Secret fields are stored encrypted and never returned in clear.',
      // The service records it: the resource id is the provider, which is not in the path.
      audit: 'service',
      body: CredentialUpsert,
      status: 200,
      response: CredentialResponse,
      handler: ({ auth, body, req }) => credentials.upsert(auth, body, req),
    }),
    defineRoute({
      operationId: 'credentials_delete',
      method: 'delete',
      path: '/api/v1/credentials/{provider}',
      auth: 'A',
      permission: 'credentials:write',
      tag,
      summary: "Delete the organization's credential for a provider",
      audit: { action: 'credential.deleted', resource: 'credential' },
      params: CredentialPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => credentials.delete(auth, params.provider),
    }),
  ]
}
