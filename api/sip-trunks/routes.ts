import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { SipTrunkCreate, SipTrunkPath, SipTrunkResponse, SipTrunkUpdate } from './schema.js'
import type { SipTrunkService } from './service.js'

const tag = 'SIP trunks'
const BASE = '/api/v1/sip-trunks'

/** Trunks belong to the request's environment (X-Environment-Id); viewing is org:read, changing org:manage. */
export function sipTrunkRoutes(trunks: SipTrunkService) {
  return [
    defineRoute({
      operationId: 'sip_trunks_list',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'sip_trunks:read',
      tag,
      summary: 'SIP trunks of the request’s environment (passwords never shown)',
      status: 200,
      response: z.array(SipTrunkResponse),
      handler: ({ auth }) => trunks.list(auth),
    }),
    defineRoute({
      operationId: 'sip_trunks_create',
      method: 'post',
      path: BASE,
      auth: 'A',
      permission: 'sip_trunks:write',
      tag,
      summary: 'Add a SIP trunk: the carrier’s address, the account and whether to register',
      description:
        'The host and outbound proxy are checked against the outbound guard (and again before every connection). ' +
        'The password is stored encrypted and never returned. At most 50 trunks per environment (409 sip_trunk_limit).',
      audit: 'service',
      body: SipTrunkCreate,
      status: 201,
      response: SipTrunkResponse,
      errors: ['sip_trunk_limit'],
      handler: ({ auth, body, req }) => trunks.create(auth, body, req),
    }),
    defineRoute({
      operationId: 'sip_trunks_get',
      method: 'get',
      path: `${BASE}/{trunk_id}`,
      auth: 'A',
      permission: 'sip_trunks:read',
      tag,
      summary: 'A SIP trunk with its registration state',
      params: SipTrunkPath,
      status: 200,
      response: SipTrunkResponse,
      errors: ['not_found'],
      handler: ({ auth, params }) => trunks.get(auth, params.trunk_id),
    }),
    defineRoute({
      operationId: 'sip_trunks_update',
      method: 'patch',
      path: `${BASE}/{trunk_id}`,
      auth: 'A',
      permission: 'sip_trunks:write',
      tag,
      summary: 'Change a SIP trunk; fields left out stay as they are (password: null removes it)',
      audit: 'service',
      params: SipTrunkPath,
      body: SipTrunkUpdate,
      status: 200,
      response: SipTrunkResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body, req }) => trunks.update(auth, params.trunk_id, body, req),
    }),
    defineRoute({
      operationId: 'sip_trunks_delete',
      method: 'delete',
      path: `${BASE}/{trunk_id}`,
      auth: 'A',
      permission: 'sip_trunks:write',
      tag,
      summary: 'Delete a SIP trunk (409 trunk_in_use while phone numbers use it); its registration ends',
      audit: { action: 'sip_trunk.deleted', resource: 'sip_trunk' },
      params: SipTrunkPath,
      status: 204,
      errors: ['not_found', 'trunk_in_use'],
      handler: ({ auth, params }) => trunks.remove(auth, params.trunk_id),
    }),
  ]
}
