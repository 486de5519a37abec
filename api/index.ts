export { createApp, type App, type AppDeps, type Services } from './app.js'
export { listen, type RunningServer } from './server.js'
export { ApiError, ERRORS, type ErrorCode } from './http/errors.js'
export { defineRoute, type AnyRoute, type RouteSpec } from './http/route.js'
