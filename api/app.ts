import Koa, { type Context } from 'koa'
import Router from '@koa/router'
import { apiKeyRoutes } from './api-keys/routes.js'
import { auditRoutes } from './audit/routes.js'
import { automationRoutes } from './automations/index.js'
import { billingRoutes } from './billing/index.js'
import { authRoutes } from './auth/routes.js'
import { credentialRoutes } from './credentials/routes.js'
import { phoneNumberRoutes } from './phone-numbers/routes.js'
import { providerRoutes } from './providers/routes.js'
import { sipTrunkRoutes } from './sip-trunks/routes.js'
import { entitlementRoutes } from './entitlements/routes.js'
import { integrationRoutes } from './integrations/routes.js'
import { localizationRoutes } from './localization/index.js'
import { errorHandler, requestContext, unmatched } from './http/middleware.js'
import { mountRoutes } from './http/mount.js'
import { createRouteCarrier } from './http/carrier.js'
import { mountMcp } from '../mcp/index.js'
import type { AnyRoute } from './http/route.js'
import { mountDocsPage } from './openapi/docs-page.js'
import { mountClientAssets } from './client-assets/index.js'
import { mountCallPage } from './call-page/index.js'
import { buildOpenApi } from './openapi/document.js'
import { organizationRoutes } from './organizations/routes.js'
import { projectRoutes } from './projects/routes.js'
import { rbacRoutes } from './rbac/routes.js'
import { requestLogRoutes } from './request-logs/routes.js'
import { irisRoutes } from './iris/routes.js'
import { callRoutes } from './calls/routes.js'
import { sessionRoutes } from './sessions/routes.js'
import { knowledgeBaseRoutes } from './knowledge-base/routes.js'
import { webhookRoutes } from './webhooks/routes.js'
import { workflowRoutes } from './workflows/routes.js'
import { testSuiteRoutes } from './test-suites/index.js'
import { toolRoutes } from './tools/index.js'
import { createServices, type ServiceDeps, type Services } from './services.js'
import { Authenticator } from './security/authenticate.js'

export interface AppDeps extends ServiceDeps {
  /** Extra routes (tests use this to exercise shell conventions on purpose-built routes). */
  extraRoutes?: (services: Services) => AnyRoute[]
  validateResponses?: boolean
}

export type { Services } from './services.js'

export interface App {
  koa: Koa
  router: Router
  routes: readonly AnyRoute[]
  services: Services
  openapi(): Record<string, unknown>
  close(): Promise<void>
}

/** Builds the shell: services over the repositories, routes over the services, one Koa app. */
export function createApp(deps: AppDeps): App {
  const { config, logger, clock } = deps
  const { services, limiter, tokens, close } = createServices(deps)
  const { repos } = services

  const routes: AnyRoute[] = [
    ...authRoutes(services.accounts),
    ...apiKeyRoutes(services.apiKeys),
    ...organizationRoutes(services.organizations),
    ...projectRoutes(services.projects),
    ...rbacRoutes(services.rbac),
    ...workflowRoutes(services.workflows, (key) => services.providers.installedVoices(key)),
    ...sessionRoutes(services.sessions),
    ...testSuiteRoutes(services.testSuites),
    ...callRoutes(services.calls),
    ...knowledgeBaseRoutes(services.knowledge),
    ...irisRoutes(services.iris),
    ...credentialRoutes(services.credentials),
    ...integrationRoutes(services.integrations),
    ...toolRoutes(services.tools),
    ...webhookRoutes(services.webhooks),
    ...automationRoutes(services.automations),
    ...sipTrunkRoutes(services.sipTrunks),
    ...phoneNumberRoutes(services.phoneNumbers),
    ...providerRoutes(services.providers),
    ...entitlementRoutes(services.entitlements),
    ...billingRoutes(services.billing),
    ...localizationRoutes(),
    ...auditRoutes(repos),
    ...requestLogRoutes(repos, () => services.requestLogs.flush()),
    ...(deps.extraRoutes?.(services) ?? []),
  ]

  const koa = new Koa({ proxy: config.trustProxy })
  const router = new Router()
  let openapiCache: Record<string, unknown> | null = null
  const openapi = () => (openapiCache ??= buildOpenApi(routes, config.publicUrl))
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi()
  })
  mountDocsPage(router)
  mountClientAssets(router)
  mountCallPage(router)
  const pipeline = mountRoutes(router, routes, {
    authenticator: new Authenticator(repos, services.authCache, tokens, clock),
    auditor: services.auditor,
    limiter,
    rateLimits: config.rateLimit,
    bodyLimitBytes: config.bodyLimitBytes,
    uploadLimitBytes: config.uploadLimitBytes,
    validateResponses: deps.validateResponses ?? false,
    turns: services.apiTurns,
  })
  // MCP over Streamable HTTP at /mcp: the same operations as tools, run through the same pipeline (docs/mcp.md).
  mountMcp(router, createRouteCarrier(routes, pipeline, { bodyLimitBytes: config.bodyLimitBytes, logger }))

  // Requests that reached an organization are kept as API request logs (batched off the path).
  const logRequest = (ctx: Context, durationMs: number) => {
    const auth = ctx.state.auth
    if (!auth) return
    services.requestLogs.push({
      organization_id: auth.organizationId,
      environment_id: auth.environmentId,
      user_id: auth.userId,
      api_key_id: auth.apiKeyId,
      method: ctx.method,
      route: (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? ctx.path,
      status: ctx.status,
      duration_ms: durationMs,
      request_id: ctx.state.requestId,
      ip: ctx.ip,
      created_at: clock.now(),
    })
  }

  koa.use(requestContext(logger, logRequest))
  koa.use(errorHandler(logger))
  koa.use(router.routes())
  koa.use(unmatched(router))

  return {
    koa,
    router,
    routes,
    services,
    openapi,
    close,
  }
}
