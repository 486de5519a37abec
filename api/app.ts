import Koa from 'koa'
import Router from '@koa/router'
import type { Clock, Logger, Secrets } from '../core/index.js'
import type { Config } from '../core/index.js'
import { createRepos, type Db, type Repos } from '../db/index.js'
import { apiKeyRoutes } from './api-keys/routes.js'
import { ApiKeyService } from './api-keys/service.js'
import { authRoutes } from './auth/routes.js'
import { AccountService } from './auth/service.js'
import { errorHandler, requestContext, unmatched } from './http/middleware.js'
import { mountRoutes } from './http/mount.js'
import type { AnyRoute } from './http/route.js'
import { Mailer } from './mail/mailer.js'
import { DOCS_HTML } from './openapi/docs-page.js'
import { buildOpenApi } from './openapi/document.js'
import { AccessTokens } from './security/access-tokens.js'
import { Authenticator } from './security/authenticate.js'
import { MemoryRateLimitStore, type RateLimitStore } from './security/rate-limit.js'

export interface AppDeps {
  db: Db
  config: Config
  secrets: Secrets
  logger: Logger
  clock: Clock
  limiter?: RateLimitStore
  /** Extra routes (tests use this to exercise shell conventions on purpose-built routes). */
  extraRoutes?: (services: Services) => AnyRoute[]
  validateResponses?: boolean
}

export interface Services {
  repos: Repos
  accounts: AccountService
  apiKeys: ApiKeyService
  mailer: Mailer
}

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
  const { db, config, logger, clock } = deps
  const repos = createRepos(db)
  const limiter = deps.limiter ?? new MemoryRateLimitStore(clock)
  const tokens = new AccessTokens(deps.secrets.tokenSigningKey, config.accessTokenTtlS, clock)
  const mailer = new Mailer(repos, { smtpUrl: config.smtpUrl, from: config.mailFrom, publicUrl: config.publicUrl }, clock, logger)
  const accounts = new AccountService({
    repos, tokens, mailer, limiter, clock, logger,
    settings: {
      refreshTokenTtlS: config.refreshTokenTtlS,
      verifyTokenTtlS: config.verifyTokenTtlS,
      resetTokenTtlS: config.resetTokenTtlS,
      loginPerAccount: { burst: config.loginAccountBurst, refillPerMin: config.loginAccountRefillPerMin },
      loginPerAddress: { burst: config.loginAddressBurst, refillPerMin: config.loginAddressRefillPerMin },
    },
  })
  const services: Services = { repos, accounts, apiKeys: new ApiKeyService(repos, clock), mailer }

  const routes: AnyRoute[] = [...authRoutes(accounts), ...apiKeyRoutes(services.apiKeys), ...(deps.extraRoutes?.(services) ?? [])]

  const koa = new Koa({ proxy: config.trustProxy })
  const router = new Router()
  let openapiCache: Record<string, unknown> | null = null
  const openapi = () => (openapiCache ??= buildOpenApi(routes, config.publicUrl))
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi()
  })
  router.get('/docs', (ctx) => {
    ctx.type = 'html'
    ctx.body = DOCS_HTML
  })
  const authenticator = new Authenticator(repos, tokens, clock)
  mountRoutes(router, routes, { authenticator, bodyLimitBytes: config.bodyLimitBytes, validateResponses: deps.validateResponses ?? false })

  koa.use(requestContext(logger))
  koa.use(errorHandler(logger))
  koa.use(router.routes())
  koa.use(unmatched(router))

  // Mail that failed to send is retried every minute while SMTP is configured.
  const retry = config.smtpUrl ? setInterval(() => void mailer.dispatch(), 60_000).unref() : null

  return {
    koa,
    router,
    routes,
    services,
    openapi,
    async close() {
      if (retry) clearInterval(retry)
      await mailer.idle()
      mailer.close()
    },
  }
}
