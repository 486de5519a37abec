import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import {
  DeliveryDetail, DeliveryPage, DeliveryPath, DeliveryQuery, DeliveryResponse, EndpointCreate, EndpointCreatedResponse, EndpointPath, EndpointResponse,
  EndpointUpdate, EventResponse, RotateSecretRequest,
} from './schema.js'
import type { WebhookService } from './service.js'

const tag = 'Webhooks'
const BASE = '/api/v1/webhooks'
const resource = 'webhook_endpoint'

/** Endpoints and deliveries belong to the request's environment (X-Environment-Id). */
export function webhookRoutes(webhooks: WebhookService) {
  return [
    defineRoute({
      operationId: 'webhooks_list_events', method: 'get', path: `${BASE}/events`, auth: 'P', tag,
      summary: 'The catalog of subscribable event types, each with an example payload', status: 200, response: z.array(EventResponse),
      handler: () => webhooks.catalog(),
    }),
    defineRoute({
      operationId: 'webhooks_list_endpoints', method: 'get', path: `${BASE}/endpoints`, auth: 'A', permission: 'webhooks:read', tag,
      summary: 'Webhook endpoints of the request’s environment (signing secret and auth_header never shown)', status: 200, response: z.array(EndpointResponse),
      handler: ({ auth }) => webhooks.list(auth),
    }),
    defineRoute({
      operationId: 'webhooks_create_endpoint', method: 'post', path: `${BASE}/endpoints`, auth: 'A', permission: 'webhooks:write', tag,
      summary: 'Register an endpoint; the response shows its signing secret, once',
      description:
        'The URL is checked against the SSRF guard (and again before every send). An unknown event type is refused with 422 (type enum). ' +
        'At most 20 endpoints per environment (409 webhook_endpoint_limit).',
      audit: { action: 'webhook_endpoint.created', resource },
      body: EndpointCreate, status: 201, response: EndpointCreatedResponse, errors: ['webhook_endpoint_limit'],
      handler: ({ auth, body }) => webhooks.create(auth, body),
    }),
    defineRoute({
      operationId: 'webhooks_update_endpoint', method: 'patch', path: `${BASE}/endpoints/{endpoint_id}`, auth: 'A', permission: 'webhooks:write', tag,
      summary: 'Change an endpoint; fields left out stay as they are', audit: { action: 'webhook_endpoint.updated', resource },
      params: EndpointPath, body: EndpointUpdate, status: 200, response: EndpointResponse, errors: ['not_found'],
      handler: ({ auth, params, body }) => webhooks.update(auth, params.endpoint_id, body),
    }),
    defineRoute({
      operationId: 'webhooks_delete_endpoint', method: 'delete', path: `${BASE}/endpoints/{endpoint_id}`, auth: 'A', permission: 'webhooks:write', tag,
      summary: 'Delete an endpoint with its deliveries (pending ones are not sent)', audit: { action: 'webhook_endpoint.deleted', resource },
      params: EndpointPath, status: 204, errors: ['not_found'],
      handler: ({ auth, params }) => webhooks.remove(auth, params.endpoint_id),
    }),
    defineRoute({
      operationId: 'webhooks_rotate_secret', method: 'post', path: `${BASE}/endpoints/{endpoint_id}/rotate-secret`, auth: 'A', permission: 'webhooks:write', tag,
      summary: 'Issue a new signing secret, shown once; the old one also signs for overlap_seconds (default 24 h)',
      description: 'During the overlap X-Ozan-Signature carries two v1 values, the new secret’s first; verifiers accept either.',
      audit: { action: 'webhook_endpoint.secret_rotated', resource },
      params: EndpointPath, body: RotateSecretRequest, bodyOptional: true, status: 200, response: EndpointCreatedResponse, errors: ['not_found'],
      handler: ({ auth, params, body }) => webhooks.rotate(auth, params.endpoint_id, body?.overlap_seconds ?? 86_400),
    }),
    defineRoute({
      operationId: 'webhooks_list_deliveries', method: 'get', path: `${BASE}/deliveries`, auth: 'A', permission: 'webhooks:read', tag,
      summary: 'Deliveries, newest first, each with its latest attempt', query: DeliveryQuery, status: 200, response: DeliveryPage,
      handler: ({ auth, query }) => webhooks.deliveries(auth, query),
    }),
    defineRoute({
      operationId: 'webhooks_get_delivery', method: 'get', path: `${BASE}/deliveries/{delivery_id}`, auth: 'A', permission: 'webhooks:read', tag,
      summary: 'A delivery with its exact body and every attempt', params: DeliveryPath, status: 200, response: DeliveryDetail, errors: ['not_found'],
      handler: ({ auth, params }) => webhooks.delivery(auth, params.delivery_id),
    }),
    defineRoute({
      operationId: 'webhooks_redeliver', method: 'post', path: `${BASE}/deliveries/{delivery_id}/redeliver`, auth: 'A', permission: 'webhooks:write', tag,
      summary: 'Send a finished delivery again: same id and body, fresh timestamp and signature',
      description: 'Answers at once with the delivery back in pending; the new attempt is listed in its detail. 409 delivery_in_progress while it is pending or sending.',
      audit: { action: 'webhook_delivery.redelivered', resource: 'webhook_delivery' },
      params: DeliveryPath, status: 200, response: DeliveryResponse, errors: ['not_found', 'delivery_in_progress', 'endpoint_disabled'],
      handler: ({ auth, params }) => webhooks.redeliver(auth, params.delivery_id),
    }),
  ]
}
