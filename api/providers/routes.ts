import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { ProviderPath, ProviderResourcesResponse, ProviderResponse } from './schema.js'
import type { ProviderService } from './service.js'

const tag = 'Providers'

/**
 * The catalog serves building agents (which provider, model and voice a config may name), so both
 * reads are agents:read, held by every built-in role and the workflow:read scope.
 */
export function providerRoutes(providers: ProviderService) {
  return [
    defineRoute({
      operationId: 'providers_list',
      method: 'get',
      path: '/api/v1/providers',
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: 'Every speech-to-text, LLM and text-to-speech provider, with its capabilities and whether a credential is there for it',
      status: 200,
      response: z.array(ProviderResponse),
      handler: ({ auth }) => providers.list(auth),
    }),
    defineRoute({
      operationId: 'providers_resources',
      method: 'get',
      path: '/api/v1/providers/{service_type}/{key}/resources',
      auth: 'A',
      permission: 'agents:read',
      tag,
      summary: "A provider's live voices and models, else the static catalog's",
      description:
        "Listed from the provider itself (OpenAI-compatible GET /models, Deepgram GET /v1/models, espeak-ng --voices) with the organization's stored credential, " +
        "else the platform's, and kept for a short while (OZAN_PROVIDER_RESOURCES_TTL_S). With no credential, or when the listing fails, times out, is refused " +
        'by the outbound guard or answers something unreadable, the static catalog is answered instead: `source` says which, `fallback_reason` why. ' +
        'An unknown service type or provider is 404.',
      params: ProviderPath,
      status: 200,
      response: ProviderResourcesResponse,
      errors: ['not_found'],
      handler: ({ auth, params }) => providers.resources(auth, params.service_type, params.key),
    }),
  ]
}
