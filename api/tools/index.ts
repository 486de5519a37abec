export { toolRoutes } from './routes.js'
export { ToolService, type ToolDeps } from './service.js'
export { ToolSecretSealer } from './sealing.js'
export { TOOL_LIMITS } from './schema.js'
