/**
 * The shell's services over the repositories, without HTTP: what the REST API's routes call and
 * what the call engine needs (repositories, sessions, providers, web-call tokens, the control bus,
 * webhooks). `createApp` mounts routes over them; `ozan engine` uses them alone, with no Koa app
 * and no API port.
 */
import { hkdfSync } from 'node:crypto'
import { InProcessBus, type Clock, type Config, type EventBus, type Logger, type ResolveHost, type Secrets } from '../core/index.js'
import { createRepos, tenancyVersions, type Db, type Repos } from '../db/index.js'
import type { LlmClient } from '../engine/graph-runtime/index.js'
import { OpenAiLlm } from '../engine/pipeline/providers/llm/index.js'
import { AnalysisWorker, analysisLlmFor } from './analysis/index.js'
import { AutomationService, AutomationWorker } from './automations/index.js'
import { ApiKeyService } from './api-keys/service.js'
import { Auditor } from './audit/auditor.js'
import { type BillingService, createBilling } from './billing/index.js'
import { AccountService } from './auth/service.js'
import { CallService, localWebCalls, type WebCalls } from './calls/service.js'
import { CredentialCipher } from './credentials/crypto.js'
import { openAiAccessFor } from './credentials/openai-access.js'
import { deepgramAccessFor } from './credentials/deepgram-access.js'
import { providerNetwork, type ProviderNetwork } from './credentials/provider-network.js'
import { CredentialService } from './credentials/service.js'
import { assertAssignedPlansExist, EntitlementGuard, EntitlementService, loadPlans } from './entitlements/index.js'
import { PhoneNumberService } from './phone-numbers/service.js'
import { ProviderService } from './providers/service.js'
import { TrunkPasswordSealer } from './sip-trunks/sealing.js'
import { SipTrunkService } from './sip-trunks/service.js'
import { LoopTurns } from './http/loop-turns.js'
import { IntegrationService } from './integrations/service.js'
import { IrisService } from './iris/service.js'
import { KnowledgeService } from './knowledge-base/service.js'
import { Mailer } from './mail/mailer.js'
import { OrganizationService } from './organizations/service.js'
import { ProjectService } from './projects/service.js'
import { RbacService } from './rbac/service.js'
import { RequestLogBuffer } from './request-logs/buffer.js'
import { AccessTokens } from './security/access-tokens.js'
import { AuthCache } from './security/auth-cache.js'
import { MemoryRateLimitStore, type RateLimitStore } from './security/rate-limit.js'
import { SessionService } from './sessions/service.js'
import { MAX_VOICE_TURN_MS } from './sessions/voice.js'
import { voiceProvidersFor } from './sessions/voice-providers.js'
import { WebhookDispatcher } from './webhooks/dispatcher.js'
import { subscribeOutbox } from './webhooks/outbox.js'
import { EndpointSealer } from './webhooks/sealing.js'
import { WebhookService } from './webhooks/service.js'
import { WorkflowService } from './workflows/service.js'
import { TestRunWorker, TestSuiteService } from './test-suites/index.js'
import { ToolSecretSealer, ToolService } from './tools/index.js'

export interface ServiceDeps {
  db: Db
  config: Config
  secrets: Secrets
  logger: Logger
  clock: Clock
  bus?: EventBus
  limiter?: RateLimitStore
  /** Host-name resolution for outbound requests (tests point names at chosen addresses). */
  resolve?: ResolveHost
  /** Web-call tokens, live-call cap and engine URL; absent: this process's own (localWebCalls). */
  webCalls?: WebCalls
}

export interface Services {
  repos: Repos
  /** API requests take turns with live calls when the engine shares this process (loop-turns.ts). */
  apiTurns: LoopTurns
  /** Keys, memberships, environments and /me views, current by construction (see AuthCache). */
  authCache: AuthCache
  bus: EventBus
  auditor: Auditor
  accounts: AccountService
  apiKeys: ApiKeyService
  rbac: RbacService
  organizations: OrganizationService
  projects: ProjectService
  workflows: WorkflowService
  sessions: SessionService
  knowledge: KnowledgeService
  iris: IrisService
  credentials: CredentialService
  /** The outbound guard and guarded connection pool of organizations' provider base URLs. */
  providerNetwork: ProviderNetwork
  integrations: IntegrationService
  /** The organization's library of function tools (api/tools, docs/tools.md). */
  tools: ToolService
  webhooks: WebhookService
  webhookDispatcher: WebhookDispatcher
  /** Post-call analysis jobs (api/analysis, docs/analysis.md). */
  analysis: AnalysisWorker
  /** Event-triggered integration actions (api/automations, docs/automations.md) and their worker. */
  automations: AutomationService
  automationWorker: AutomationWorker
  /** Test suites and the worker running their runs' cases (api/test-suites, docs/test-suites.md). */
  testSuites: TestSuiteService
  testRunWorker: TestRunWorker
  mailer: Mailer
  requestLogs: RequestLogBuffer
  calls: CallService
  sipTrunks: SipTrunkService
  /** Seals and opens trunk passwords (the SIP service answers digest challenges with them). */
  trunkPasswords: TrunkPasswordSealer
  /** HMAC key of the SIP listener's digest nonces (derived from the token signing key). */
  sipNonceSecret: Buffer
  phoneNumbers: PhoneNumberService
  /** Pricing, metering, the credit ledger and top-ups (api/billing, docs/billing.md). */
  billing: BillingService
  /** The provider catalog and providers' live voices and models (GET /api/v1/providers). */
  providers: ProviderService
  entitlements: EntitlementService
  /** Plan limits and product flags, checked where limited things are created and calls start. */
  entitlementGuard: EntitlementGuard
  /** Shared by POST /api/v1/calls/web-token and the call engine (api/calls/engine.ts). */
  webCalls: WebCalls
  clock: Clock
}

export interface ServicesHandle {
  services: Services
  /** The rate-limit store and access tokens the API's routes use with them. */
  limiter: RateLimitStore
  tokens: AccessTokens
  /** Stops background work (request logs, webhook deliveries, mail retries, connections), waiting for what is in flight. */
  close(): Promise<void>
}

/** Builds the services and starts their background work: webhook deliveries, mail retries. */
export function createServices(deps: ServiceDeps): ServicesHandle {
  const { config, clock } = deps
  const limiter = deps.limiter ?? new MemoryRateLimitStore(clock)
  const tokens = new AccessTokens(deps.secrets.tokenSigningKey, config.accessTokenTtlS, clock)
  const services = buildServices(deps, limiter, tokens)
  // Pending webhook deliveries (left by the last stop, too) go out from now on.
  services.webhookDispatcher.start()
  // Post-call analyses of sessions that end from now on, and those the last stop left unfinished.
  services.analysis.start()
  // Automation runs for events from now on, and those the last stop left pending or unfinished.
  services.automationWorker.start()
  // Test-run cases queued or left running by the last stop.
  services.testRunWorker.start()
  // Mail that failed to send is retried every minute while SMTP is configured.
  const retry = config.smtpUrl ? setInterval(() => void services.mailer.dispatch(), 60_000).unref() : null
  return {
    services,
    limiter,
    tokens,
    async close() {
      if (retry) clearInterval(retry)
      services.requestLogs.close()
      await services.analysis.close()
      await services.testRunWorker.close()
      await services.automationWorker.close()
      await services.webhookDispatcher.close(Math.min(config.shutdownTimeoutMs, 5000))
      await services.knowledge.close()
      await services.providerNetwork.close()
      await services.mailer.idle()
      services.mailer.close()
    },
  }
}

function buildServices(deps: ServiceDeps, limiter: RateLimitStore, tokens: AccessTokens): Services {
  const { db, config, logger, clock } = deps
  const repos = createRepos(db)
  const authCache = new AuthCache(repos, tenancyVersions(db))
  const bus = deps.bus ?? new InProcessBus((err, event) => logger.error({ err, event: event.type }, 'event listener failed'))
  const auditor = new Auditor(repos, clock)
  const billing = createBilling({ db, repos, config, clock, auditor, logger })
  // The operator's plans: a bad file, or organizations on a plan it no longer defines, stop start-up.
  const catalog = loadPlans(config.plansFile)
  assertAssignedPlansExist(catalog, repos.entitlements.assignedPlanKeys())
  const entitlementGuard = new EntitlementGuard({ repos, catalog, clock, serverLiveCallCap: config.maxLiveCallsPerOrg })
  const mailer = new Mailer(repos, { smtpUrl: config.smtpUrl, from: config.mailFrom, publicUrl: config.publicUrl }, clock, logger)
  const accounts = new AccountService({
    repos,
    authCache,
    tokens,
    mailer,
    limiter,
    clock,
    logger,
    auditor,
    settings: {
      refreshTokenTtlS: config.refreshTokenTtlS,
      verifyTokenTtlS: config.verifyTokenTtlS,
      resetTokenTtlS: config.resetTokenTtlS,
      loginPerAccountAddress: { burst: config.loginAccountBurst, refillPerMin: config.loginAccountRefillPerMin },
      loginPerAccount: { burst: config.loginAccountCeilingBurst, refillPerMin: config.loginAccountCeilingRefillPerMin },
      loginPerAddress: { burst: config.loginAddressBurst, refillPerMin: config.loginAddressRefillPerMin },
    },
  })
  const providers = providerNetwork(config, deps.resolve)
  const { organizationConnections } = providers
  const credentials = new CredentialService({
    repos,
    cipher: new CredentialCipher(deps.secrets.credentialEncryptionKey),
    clock,
    auditor,
    logger,
    guard: providers.guard,
  })
  const openAiAccess = openAiAccessFor({ config, credentials, logger })
  const deepgramAccess = deepgramAccessFor({ config, credentials, logger })
  /** The LLM of an organization's sessions; none: conversation turns answer provider_not_configured. */
  const llmFor = (organizationId: string): LlmClient | undefined => {
    const access = openAiAccess(organizationId)
    // An organization's own base URL connects through the guarded pool; the operator's is trusted.
    const connections = access?.origin === 'organization' ? { connections: organizationConnections } : {}
    return access && new OpenAiLlm({ apiKey: access.apiKey, baseURL: access.baseURL, timeoutMs: config.llmTimeoutMs, ...connections })
  }
  const integrations = new IntegrationService({ repos, credentials, auditor, logger, guard: providers.guard, timeoutMs: config.integrationTimeoutMs })
  // Library tools run through the integration actions (an HTTP tool is the http action), so every
  // exchange passes the same outbound guard and deadline rules.
  const tools = new ToolService({
    repos,
    clock,
    auditor,
    logger,
    sealer: new ToolSecretSealer(new CredentialCipher(deps.secrets.credentialEncryptionKey)),
    guard: providers.guard,
    actionsFor: (organizationId) => integrations.runnerFor(organizationId),
  })
  // Hybrid ranking when OZAN_EMBEDDINGS_MODEL is set: embeddings by the LLM's key and base URL.
  const knowledge = new KnowledgeService(repos, clock, {
    quota: entitlementGuard,
    embeddings: { config, accessFor: openAiAccess, logger, organizationConnections },
  })
  // One guard for every destination an organization aims: webhooks, integrations, provider base URLs.
  const guard = providers.guard
  const sealer = new EndpointSealer(new CredentialCipher(deps.secrets.credentialEncryptionKey))
  const webhookDispatcher = new WebhookDispatcher({
    repos,
    sealer,
    clock,
    logger,
    guard,
    options: { maxInFlight: config.webhookMaxInFlight, maxPerEndpoint: config.webhookMaxPerEndpoint, retentionDays: config.webhookRetentionDays },
  })
  subscribeOutbox(bus, repos, webhookDispatcher)
  const automationWorker = new AutomationWorker({
    repos,
    bus,
    clock,
    logger,
    runnerFor: (organizationId) => integrations.runnerFor(organizationId),
    options: {
      concurrency: config.automationConcurrency,
      maxAttempts: config.automationMaxAttempts,
      retryBaseMs: config.automationRetryBaseMs,
      retentionDays: config.automationRetentionDays,
    },
  })
  // Tool nodes and LLM tools run integration actions; knowledge nodes search the session's own
  // organization and environment.
  const sessions = new SessionService({
    repos,
    bus,
    clock,
    logger,
    meter: billing,
    llmFor,
    // describe: the LLM is offered each action's exact input schema, so its arguments validate.
    toolsFor: (organizationId) => ({
      ...integrations.runnerFor(organizationId),
      describe: (ref) => integrations.describeAction(ref),
      ...tools.runnerFor(organizationId),
    }),
    knowledgeFor: (scope) => knowledge.forScope(scope),
    // Voice turns: STT and TTS by the agent's config, keys and base URLs from stored credentials.
    voiceFor: voiceProvidersFor({ openAiAccess, deepgramAccess, organizationConnections, maxAudioMs: MAX_VOICE_TURN_MS }),
  })
  // Test cases run the agent as text sessions do: the same LLM, tools and knowledge of the scope.
  const testRunWorker = new TestRunWorker({
    repos,
    clock,
    logger,
    runtimeIO: (scope) => sessions.runtimeIO(scope),
    meter: billing,
    options: { concurrency: config.testRunConcurrency, maxAttempts: config.testRunMaxAttempts, caseTimeoutMs: config.testCaseTimeoutMs },
  })
  const trunkPasswords = new TrunkPasswordSealer(new CredentialCipher(deps.secrets.credentialEncryptionKey))
  // The live-call cap the engine counts against is the plan's (the stricter of it and the server's).
  const capFor = (organizationId: string) => entitlementGuard.liveCallCap(organizationId)
  const webCalls = deps.webCalls ?? localWebCalls({ config, key: deps.secrets.tokenSigningKey, repo: repos.webCallTokens, clock, capFor })
  return {
    apiTurns: new LoopTurns(),
    clock,
    webCalls,
    calls: new CallService({ sessions, webCalls, clock, repos, quota: entitlementGuard, billing }),
    sipTrunks: new SipTrunkService({ repos, sealer: trunkPasswords, clock, auditor, guard }),
    trunkPasswords,
    sipNonceSecret: Buffer.from(hkdfSync('sha256', deps.secrets.tokenSigningKey, Buffer.alloc(0), 'ozan sip digest nonces', 32)),
    phoneNumbers: new PhoneNumberService({ repos, clock }),
    billing,
    providers: new ProviderService({
      config,
      openAiAccess,
      deepgramAccess,
      credentials,
      storedProviders: (organizationId) => repos.credentials.list(organizationId).map((row) => row.provider),
      organizationConnections,
      clock,
      logger,
      options: { ttlMs: config.providerResourcesTtlS * 1000, timeoutMs: config.providerListingTimeoutMs },
    }),
    entitlements: new EntitlementService({
      repos,
      guard: entitlementGuard,
      auditor,
      clock,
      liveCalls: (organizationId) => webCalls.liveCalls.count(organizationId),
    }),
    entitlementGuard,
    repos,
    authCache,
    bus,
    auditor,
    accounts,
    mailer,
    credentials,
    providerNetwork: providers,
    integrations,
    tools,
    knowledge,
    webhookDispatcher,
    analysis: new AnalysisWorker({
      repos,
      bus,
      clock,
      logger,
      llmFor: analysisLlmFor({ accessFor: openAiAccess, organizationConnections, timeoutMs: config.analysisTimeoutMs }),
      meter: billing,
      options: { concurrency: config.analysisConcurrency, maxAttempts: config.analysisMaxAttempts, retryBaseMs: config.analysisRetryBaseMs },
    }),
    automationWorker,
    automations: new AutomationService({ repos, clock, worker: automationWorker }),
    testRunWorker,
    testSuites: new TestSuiteService({ repos, clock, wake: () => testRunWorker.wake(), voiceAvailable: () => testRunWorker.voiceAvailable, credit: billing }),
    webhooks: new WebhookService({ repos, sealer, clock, dispatcher: webhookDispatcher, guard, quota: entitlementGuard }),
    apiKeys: new ApiKeyService(repos, clock, entitlementGuard),
    rbac: new RbacService({ repos, clock, mailer, bus, auditor, invitationTtlS: config.invitationTtlS, quota: entitlementGuard }),
    organizations: new OrganizationService(repos, accounts, auditor, clock, config.regions),
    projects: new ProjectService(repos, clock),
    workflows: new WorkflowService(repos, bus, clock, entitlementGuard, (organizationId, definition, at) => tools.pin(organizationId, definition, at)),
    sessions,
    iris: new IrisService(repos, llmFor),
    requestLogs: new RequestLogBuffer(repos, clock, logger, { retentionDays: config.requestLogRetentionDays }),
  }
}
