import { z } from 'zod'
import { defineRoute } from '../http/route.js'
import { PhoneNumberCreate, PhoneNumberPath, PhoneNumberResponse, PhoneNumberUpdate } from './schema.js'
import type { PhoneNumberService } from './service.js'

const tag = 'Phone numbers'
const BASE = '/api/v1/phone-numbers'
const resource = 'phone_number'

/** Numbers belong to the request's environment; viewing is org:read, changing org:manage (the spec's scope table). */
export function phoneNumberRoutes(numbers: PhoneNumberService) {
  return [
    defineRoute({
      operationId: 'phone_numbers_list',
      method: 'get',
      path: BASE,
      auth: 'A',
      permission: 'phone_numbers:read',
      tag,
      summary: 'Phone numbers of the request’s environment, in number order',
      status: 200,
      response: z.array(PhoneNumberResponse),
      handler: ({ auth }) => numbers.list(auth),
    }),
    defineRoute({
      operationId: 'phone_numbers_create',
      method: 'post',
      path: BASE,
      auth: 'A',
      permission: 'phone_numbers:write',
      tag,
      summary: 'Add a phone number: its trunk and the agent that answers it',
      description:
        'A number is unique on the server (409 phone_number_taken): inbound calls are routed by the number alone. ' +
        'At most 1000 numbers per environment (409 phone_number_limit).',
      audit: { action: 'phone_number.created', resource },
      body: PhoneNumberCreate,
      status: 201,
      response: PhoneNumberResponse,
      errors: ['phone_number_taken', 'phone_number_limit'],
      handler: ({ auth, body }) => numbers.create(auth, body),
    }),
    defineRoute({
      operationId: 'phone_numbers_get',
      method: 'get',
      path: `${BASE}/{phone_number_id}`,
      auth: 'A',
      permission: 'phone_numbers:read',
      tag,
      summary: 'A phone number',
      params: PhoneNumberPath,
      status: 200,
      response: PhoneNumberResponse,
      errors: ['not_found'],
      handler: ({ auth, params }) => numbers.get(auth, params.phone_number_id),
    }),
    defineRoute({
      operationId: 'phone_numbers_update',
      method: 'patch',
      path: `${BASE}/{phone_number_id}`,
      auth: 'A',
      permission: 'phone_numbers:write',
      tag,
      summary: 'Change a number’s label, trunk or answering agent',
      audit: { action: 'phone_number.updated', resource },
      params: PhoneNumberPath,
      body: PhoneNumberUpdate,
      status: 200,
      response: PhoneNumberResponse,
      errors: ['not_found'],
      handler: ({ auth, params, body }) => numbers.update(auth, params.phone_number_id, body),
    }),
    defineRoute({
      operationId: 'phone_numbers_delete',
      method: 'delete',
      path: `${BASE}/{phone_number_id}`,
      auth: 'A',
      permission: 'phone_numbers:write',
      tag,
      summary: 'Delete a phone number; calls to it are then refused (404)',
      audit: { action: 'phone_number.deleted', resource },
      params: PhoneNumberPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => numbers.remove(auth, params.phone_number_id),
    }),
  ]
}
