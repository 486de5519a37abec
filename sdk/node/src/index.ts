/**
 * @ozan/server: the Ozan API from Node.js. A typed client generated from the API's OpenAPI
 * document (client/), and verification of signed webhook deliveries (webhooks.ts).
 */
export * from './webhooks.js'
export * from './client/index.js'
export type { paths, components, operations } from './generated/openapi.js'
