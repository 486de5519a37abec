import net from 'node:net'
import path from 'node:path'
import { z } from 'zod'

/**
 * Configuration comes only from environment variables (12-factor). Every variable, its default and
 * its meaning is listed in docs/configuration.md; keep the two in step.
 */
export interface Config {
  host: string
  port: number
  publicUrl: string
  dataDir: string
  databaseFile: string
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  trustProxy: boolean
  bodyLimitBytes: number
  /** Largest file accepted by an upload (the knowledge base); refused while streaming. */
  uploadLimitBytes: number
  shutdownTimeoutMs: number
  accessTokenTtlS: number
  refreshTokenTtlS: number
  verifyTokenTtlS: number
  resetTokenTtlS: number
  /** Failed sign-ins to one account from one client address (api/auth/login-throttle.ts). */
  loginAccountBurst: number
  loginAccountRefillPerMin: number
  /** Failed sign-ins to one account from every address together. */
  loginAccountCeilingBurst: number
  loginAccountCeilingRefillPerMin: number
  loginAddressBurst: number
  loginAddressRefillPerMin: number
  smtpUrl: string | null
  mailFrom: string
  invitationTtlS: number
  requestLogRetentionDays: number
  regions: Region[]
  rateLimit: { organization: Rule; apiKey: Rule; address: Rule }
  /** The platform's LLM, used by organizations without a stored "openai" credential. */
  openaiApiKey: string | null
  openaiBaseUrl: string
  /** The platform's Deepgram key, used by organizations without a stored "deepgram" credential. */
  deepgramApiKey: string | null
  deepgramBaseUrl: string
  llmTimeoutMs: number
  /** Embedding model for hybrid knowledge-base ranking (same key and base URL as the LLM); null: BM25 only. */
  embeddingsModel: string | null
  /** Vector size asked of the model (`dimensions`); null: the model's own. */
  embeddingsDimensions: number | null
  embeddingsTimeoutMs: number
  /** CIDR ranges outbound integration requests may reach although private/loopback (SSRF guard). */
  allowPrivateCidrs: string[]
  /** Longest an integration action's provider request may take. */
  integrationTimeoutMs: number
  /** How long a provider's live voices and models are served from memory (GET /providers/…/resources). */
  providerResourcesTtlS: number
  /** Deadline of one provider listing (connect, send, read; espeak-ng --voices). */
  providerListingTimeoutMs: number
  /** Webhook attempts in flight at once: all endpoints, and per endpoint. */
  webhookMaxInFlight: number
  webhookMaxPerEndpoint: number
  /** Finished webhook deliveries (and their attempts) are deleted after this many days. */
  webhookRetentionDays: number
  /** Post-call analysis (api/analysis): jobs at once, attempts per job, first retry's backoff, one attempt's deadline. */
  analysisConcurrency: number
  analysisMaxAttempts: number
  analysisRetryBaseMs: number
  analysisTimeoutMs: number
  /** Test-suite runs (api/test-suites): cases run at once, starts per case, one case's deadline. */
  testRunConcurrency: number
  testRunMaxAttempts: number
  testCaseTimeoutMs: number
  /** Automations (api/automations): runs worked at once, automatic attempts per run, first retry's backoff, days finished runs are kept. */
  automationConcurrency: number
  automationMaxAttempts: number
  automationRetryBaseMs: number
  automationRetentionDays: number
  /** The call engine's WebSocket server (web calls): bind address, port (0: any free one), transport. */
  engineHost: string
  enginePort: number
  engineSocket: 'auto' | 'uws' | 'ws'
  /** The SIP listener of phone calls (telephony/, docs/telephony.md). */
  sip: {
    enabled: boolean
    host: string
    port: number
    transports: ('udp' | 'tcp')[]
    /** The address written in Via, Contact and SDP; null: the first non-internal IPv4 of the machine (else 127.0.0.1). */
    publicAddress: string | null
    rtpPortMin: number
    rtpPortMax: number
    /** Where calls' RTP sockets live: a media worker that sends each packet at its time (default), or the main thread (telephony/media/io/). */
    rtpIo: 'worker' | 'inline'
    answerDelayMs: number
    /** How long an outbound call rings before it is cancelled (no-answer). */
    ringTimeoutMs: number
    /** Per source address: SIP messages a second, and at once (sip/transport/source-limiter.ts). */
    sourceLimits: { perSecond: number; burst: number }
  }
  /** Silero skips windows quieter than this (dBFS); null: every window runs (engine/vad/silero.ts). */
  vadSilenceGateDbfs: number | null
  /** The ws(s):// base browsers reach the engine at; null: ws://localhost:<bound port>. */
  enginePublicUrl: string | null
  /** Lifetime of a web-call token (1 … 300 s). */
  webCallTokenTtlS: number
  /** Live calls one organization may have at once. */
  maxLiveCallsPerOrg: number
  /** The operator's plans (JSON, docs/entitlements.md); null: one unlimited plan for every organization. */
  plansFile: string | null
  /** Billing (docs/billing.md): off by default; on meters, debits and refuses sessions without credit. */
  billing: {
    enabled: boolean
    currency: string
    /** A JSON array of prices laid over the built-in ones; null: the built-in ones. */
    pricesFile: string | null
    payments: 'stripe' | 'manual' | 'none'
    stripeSecretKey: string | null
    stripeWebhookSecret: string | null
    /** Stripe's API base URL (tests: the stand-in). */
    stripeApiUrl: string
    /** The operator's page buyers of the manual provider are sent to. */
    manualUrl: string | null
  }
  /** Overrides for the secrets otherwise generated into the data dir (base64, ≥ 32 bytes). */
  tokenSigningKey: string | null
  credentialEncryptionKey: string | null
}

export interface Region {
  id: string
  name: string
  api_url: string
}

interface Rule {
  burst: number
  refillPerMin: number
}

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
/** "10.0.0.0/8" or "::1/128": an address net.isIP accepts and a prefix length its family allows. */
const isCidr = (v: string): boolean => {
  const [address = '', prefix, ...rest] = v.split('/')
  const family = net.isIP(address)
  return family !== 0 && rest.length === 0 && prefix !== undefined && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}
const cidrList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every(isCidr), 'must be comma-separated CIDR ranges such as "127.0.0.0/8,10.1.0.0/16"')
const secret = z.string().refine((v) => Buffer.from(v, 'base64').length >= 32, 'must be base64 of at least 32 bytes')

/** Variable name → [schema, default]. A missing variable takes the default. */
const VARIABLES = {
  OZAN_HOST: [z.string().min(1), '0.0.0.0'],
  OZAN_PORT: [int(0, 65535), '8080'],
  OZAN_PUBLIC_URL: [z.url().optional(), undefined],
  OZAN_DATA_DIR: [z.string().min(1), './data'],
  OZAN_LOG_LEVEL: [z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'],
  OZAN_TRUST_PROXY: [bool, 'false'],
  OZAN_BODY_LIMIT_BYTES: [int(1024, 64 * 1024 * 1024), String(1024 * 1024)],
  OZAN_UPLOAD_LIMIT_BYTES: [int(1024, 256 * 1024 * 1024), String(10 * 1024 * 1024)],
  OZAN_SHUTDOWN_TIMEOUT_MS: [int(0, 600_000), '10000'],
  OZAN_ACCESS_TOKEN_TTL_S: [int(30, 86_400), '900'],
  OZAN_REFRESH_TOKEN_TTL_S: [int(300, 365 * 86_400), String(30 * 86_400)],
  OZAN_VERIFY_TOKEN_TTL_S: [int(60, 30 * 86_400), String(24 * 3600)],
  OZAN_RESET_TOKEN_TTL_S: [int(60, 7 * 86_400), '3600'],
  OZAN_LOGIN_ACCOUNT_BURST: [int(1, 10_000), '10'],
  OZAN_LOGIN_ACCOUNT_REFILL_PER_MIN: [int(1, 100_000), '2'],
  OZAN_LOGIN_ACCOUNT_CEILING_BURST: [int(1, 1_000_000), '100'],
  OZAN_LOGIN_ACCOUNT_CEILING_REFILL_PER_MIN: [int(1, 100_000), '2'],
  OZAN_LOGIN_ADDRESS_BURST: [int(1, 100_000), '50'],
  OZAN_LOGIN_ADDRESS_REFILL_PER_MIN: [int(1, 100_000), '20'],
  OZAN_SMTP_URL: [z.url({ protocol: /^smtps?$/ }).optional(), undefined],
  OZAN_MAIL_FROM: [z.string().min(3), 'Ozan <no-reply@localhost>'],
  OZAN_INVITATION_TTL_S: [int(3600, 90 * 86_400), String(7 * 86_400)],
  OZAN_REQUEST_LOG_RETENTION_DAYS: [int(1, 3650), '30'],
  // "id=Name" pairs, comma separated; each region's API URL is this deployment's public URL unless
  // given as "id=Name=https://…".
  OZAN_REGIONS: [
    z.string().regex(/^[a-z0-9-]+=[^,=]+(=https?:\/\/[^,]+)?(,[a-z0-9-]+=[^,=]+(=https?:\/\/[^,]+)?)*$/, 'must look like "eu=Europe,us=United States"'),
    'local=Local',
  ],
  OZAN_RATE_LIMIT_ORG_PER_MIN: [int(1, 10_000_000), '6000'],
  OZAN_RATE_LIMIT_ORG_BURST: [int(1, 10_000_000), '1000'],
  OZAN_RATE_LIMIT_KEY_PER_MIN: [int(1, 10_000_000), '3000'],
  OZAN_RATE_LIMIT_KEY_BURST: [int(1, 10_000_000), '500'],
  OZAN_RATE_LIMIT_ADDRESS_PER_MIN: [int(1, 10_000_000), '3000'],
  OZAN_RATE_LIMIT_ADDRESS_BURST: [int(1, 10_000_000), '500'],
  OZAN_OPENAI_API_KEY: [z.string().min(1).max(4096).optional(), undefined],
  OZAN_OPENAI_BASE_URL: [z.url({ protocol: /^https?$/ }), 'https://api.openai.com/v1'],
  OZAN_DEEPGRAM_API_KEY: [z.string().min(1).max(4096).optional(), undefined],
  OZAN_DEEPGRAM_BASE_URL: [z.url({ protocol: /^https?$/ }), 'https://api.deepgram.com'],
  OZAN_LLM_TIMEOUT_MS: [int(500, 300_000), '10000'],
  OZAN_EMBEDDINGS_MODEL: [z.string().trim().min(1).max(200).optional(), undefined],
  OZAN_EMBEDDINGS_DIMENSIONS: [int(1, 16_384).optional(), undefined],
  OZAN_EMBEDDINGS_TIMEOUT_MS: [int(100, 120_000), '5000'],
  OZAN_ALLOW_PRIVATE_CIDRS: [cidrList, ''],
  OZAN_INTEGRATION_TIMEOUT_MS: [int(100, 30_000), '10000'],
  OZAN_PROVIDER_RESOURCES_TTL_S: [int(0, 86_400), '60'],
  OZAN_PROVIDER_LISTING_TIMEOUT_MS: [int(100, 60_000), '5000'],
  OZAN_WEBHOOK_MAX_IN_FLIGHT: [int(1, 10_000), '64'],
  OZAN_WEBHOOK_MAX_PER_ENDPOINT: [int(1, 1000), '4'],
  OZAN_WEBHOOK_RETENTION_DAYS: [int(1, 3650), '30'],
  OZAN_ANALYSIS_CONCURRENCY: [int(1, 64), '2'],
  OZAN_ANALYSIS_MAX_ATTEMPTS: [int(1, 20), '4'],
  OZAN_ANALYSIS_RETRY_BASE_MS: [int(0, 300_000), '5000'],
  OZAN_ANALYSIS_TIMEOUT_MS: [int(1000, 600_000), '60000'],
  OZAN_TEST_RUN_CONCURRENCY: [int(1, 64), '2'],
  OZAN_TEST_RUN_MAX_ATTEMPTS: [int(1, 10), '2'],
  OZAN_TEST_CASE_TIMEOUT_MS: [int(1000, 3_600_000), '300000'],
  OZAN_AUTOMATION_CONCURRENCY: [int(1, 64), '4'],
  OZAN_AUTOMATION_MAX_ATTEMPTS: [int(1, 20), '4'],
  OZAN_AUTOMATION_RETRY_BASE_MS: [int(0, 300_000), '5000'],
  OZAN_AUTOMATION_RETENTION_DAYS: [int(1, 3650), '30'],
  OZAN_ENGINE_HOST: [z.string().min(1).optional(), undefined],
  OZAN_ENGINE_PORT: [int(0, 65535), '8081'],
  OZAN_ENGINE_SOCKET: [z.enum(['auto', 'uws', 'ws']), 'auto'],
  OZAN_ENGINE_PUBLIC_URL: [z.url({ protocol: /^wss?$/ }).optional(), undefined],
  OZAN_VAD_SILENCE_GATE_DBFS: [z.union([z.literal('off'), z.coerce.number().int().min(-120).max(-20)]), '-70'],
  OZAN_SIP: [z.enum(['on', 'off']), 'on'],
  OZAN_SIP_HOST: [z.string().min(1).optional(), undefined],
  OZAN_SIP_PORT: [int(0, 65535), '5060'],
  OZAN_SIP_TRANSPORTS: [z.string().regex(/^(udp|tcp)(,(udp|tcp))?$/, 'must be udp, tcp or udp,tcp'), 'udp,tcp'],
  OZAN_SIP_PUBLIC_ADDRESS: [
    z
      .string()
      .refine((v) => net.isIP(v) !== 0, 'must be an IP address')
      .optional(),
    undefined,
  ],
  OZAN_RTP_PORT_MIN: [int(1024, 65534), '10000'],
  OZAN_RTP_PORT_MAX: [int(1025, 65535), '20000'],
  OZAN_RTP_IO: [z.enum(['worker', 'inline']), 'worker'],
  OZAN_SIP_ANSWER_DELAY_MS: [int(0, 10000), '0'],
  OZAN_SIP_RING_TIMEOUT_S: [int(1, 600), '60'],
  OZAN_SIP_SOURCE_RATE: [int(1, 100_000), '100'],
  OZAN_SIP_SOURCE_BURST: [int(1, 100_000), '200'],
  OZAN_WEB_CALL_TOKEN_TTL_S: [int(1, 300), '300'],
  OZAN_MAX_LIVE_CALLS_PER_ORG: [int(1, 100_000), '10'],
  OZAN_PLANS_FILE: [z.string().trim().min(1).max(4096).optional(), undefined],
  OZAN_BILLING: [z.enum(['on', 'off']), 'off'],
  OZAN_BILLING_CURRENCY: [z.string().regex(/^[a-z]{3}$/, 'an ISO 4217 code in lower case, such as usd'), 'usd'],
  OZAN_BILLING_PRICES_FILE: [z.string().min(1).optional(), undefined],
  OZAN_BILLING_PAYMENTS: [z.enum(['stripe', 'manual', 'none']), 'none'],
  OZAN_STRIPE_SECRET_KEY: [z.string().min(1).max(500).optional(), undefined],
  OZAN_STRIPE_WEBHOOK_SECRET: [z.string().min(1).max(500).optional(), undefined],
  OZAN_STRIPE_API_URL: [z.url({ protocol: /^https?$/ }), 'https://api.stripe.com'],
  OZAN_BILLING_MANUAL_URL: [z.url({ protocol: /^https?$/ }).optional(), undefined],
  OZAN_TOKEN_SIGNING_KEY: [secret.optional(), undefined],
  OZAN_CREDENTIAL_ENCRYPTION_KEY: [secret.optional(), undefined],
} as const satisfies Record<string, readonly [z.ZodType, string | undefined]>

type VarName = keyof typeof VARIABLES
type Parsed = { [K in VarName]: z.output<(typeof VARIABLES)[K][0]> }

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []
  const out: Record<string, unknown> = {}
  for (const [name, [schema, fallback]] of Object.entries(VARIABLES)) {
    const raw = env[name] === '' ? undefined : env[name]
    const result = (schema as z.ZodType).safeParse(raw ?? fallback)
    if (result.success) out[name] = result.data
    // Never echo the value: some of these variables are secrets.
    else problems.push(`${name}: ${result.error.issues.map((i) => i.message).join('; ')}`)
  }
  const ranges = out as Partial<Parsed>
  if (ranges.OZAN_RTP_PORT_MIN !== undefined && ranges.OZAN_RTP_PORT_MAX !== undefined && ranges.OZAN_RTP_PORT_MAX - ranges.OZAN_RTP_PORT_MIN < 3) {
    problems.push('OZAN_RTP_PORT_MAX: must be at least OZAN_RTP_PORT_MIN + 3 (one RTP/RTCP pair needs two ports)')
  }
  if (ranges.OZAN_BILLING_PAYMENTS === 'stripe' && (!ranges.OZAN_STRIPE_SECRET_KEY || !ranges.OZAN_STRIPE_WEBHOOK_SECRET)) {
    problems.push('OZAN_BILLING_PAYMENTS: stripe needs OZAN_STRIPE_SECRET_KEY and OZAN_STRIPE_WEBHOOK_SECRET')
  }
  if (ranges.OZAN_BILLING_PAYMENTS === 'manual' && !ranges.OZAN_BILLING_MANUAL_URL) problems.push('OZAN_BILLING_PAYMENTS: manual needs OZAN_BILLING_MANUAL_URL')
  if (problems.length) throw new ConfigError(problems)
  const v = out as Parsed
  const dataDir = path.resolve(v.OZAN_DATA_DIR)
  const shownHost = v.OZAN_HOST === '0.0.0.0' || v.OZAN_HOST === '::' ? 'localhost' : v.OZAN_HOST
  const publicUrl = (v.OZAN_PUBLIC_URL ?? `http://${shownHost}:${v.OZAN_PORT}`).replace(/\/$/, '')
  return {
    host: v.OZAN_HOST,
    port: v.OZAN_PORT,
    publicUrl,
    dataDir,
    databaseFile: path.join(dataDir, 'ozan.db'),
    logLevel: v.OZAN_LOG_LEVEL,
    trustProxy: v.OZAN_TRUST_PROXY,
    bodyLimitBytes: v.OZAN_BODY_LIMIT_BYTES,
    uploadLimitBytes: v.OZAN_UPLOAD_LIMIT_BYTES,
    shutdownTimeoutMs: v.OZAN_SHUTDOWN_TIMEOUT_MS,
    accessTokenTtlS: v.OZAN_ACCESS_TOKEN_TTL_S,
    refreshTokenTtlS: v.OZAN_REFRESH_TOKEN_TTL_S,
    verifyTokenTtlS: v.OZAN_VERIFY_TOKEN_TTL_S,
    resetTokenTtlS: v.OZAN_RESET_TOKEN_TTL_S,
    loginAccountBurst: v.OZAN_LOGIN_ACCOUNT_BURST,
    loginAccountRefillPerMin: v.OZAN_LOGIN_ACCOUNT_REFILL_PER_MIN,
    loginAccountCeilingBurst: v.OZAN_LOGIN_ACCOUNT_CEILING_BURST,
    loginAccountCeilingRefillPerMin: v.OZAN_LOGIN_ACCOUNT_CEILING_REFILL_PER_MIN,
    loginAddressBurst: v.OZAN_LOGIN_ADDRESS_BURST,
    loginAddressRefillPerMin: v.OZAN_LOGIN_ADDRESS_REFILL_PER_MIN,
    smtpUrl: v.OZAN_SMTP_URL ?? null,
    mailFrom: v.OZAN_MAIL_FROM,
    invitationTtlS: v.OZAN_INVITATION_TTL_S,
    requestLogRetentionDays: v.OZAN_REQUEST_LOG_RETENTION_DAYS,
    regions: v.OZAN_REGIONS.split(',').map((pair) => {
      const [id = '', name = '', ...url] = pair.split('=')
      return { id, name: name.trim(), api_url: url.length ? url.join('=') : publicUrl }
    }),
    rateLimit: {
      organization: { burst: v.OZAN_RATE_LIMIT_ORG_BURST, refillPerMin: v.OZAN_RATE_LIMIT_ORG_PER_MIN },
      apiKey: { burst: v.OZAN_RATE_LIMIT_KEY_BURST, refillPerMin: v.OZAN_RATE_LIMIT_KEY_PER_MIN },
      address: { burst: v.OZAN_RATE_LIMIT_ADDRESS_BURST, refillPerMin: v.OZAN_RATE_LIMIT_ADDRESS_PER_MIN },
    },
    openaiApiKey: v.OZAN_OPENAI_API_KEY ?? null,
    openaiBaseUrl: v.OZAN_OPENAI_BASE_URL,
    deepgramApiKey: v.OZAN_DEEPGRAM_API_KEY ?? null,
    deepgramBaseUrl: v.OZAN_DEEPGRAM_BASE_URL,
    llmTimeoutMs: v.OZAN_LLM_TIMEOUT_MS,
    embeddingsModel: v.OZAN_EMBEDDINGS_MODEL ?? null,
    embeddingsDimensions: v.OZAN_EMBEDDINGS_DIMENSIONS ?? null,
    embeddingsTimeoutMs: v.OZAN_EMBEDDINGS_TIMEOUT_MS,
    allowPrivateCidrs: v.OZAN_ALLOW_PRIVATE_CIDRS,
    integrationTimeoutMs: v.OZAN_INTEGRATION_TIMEOUT_MS,
    providerResourcesTtlS: v.OZAN_PROVIDER_RESOURCES_TTL_S,
    providerListingTimeoutMs: v.OZAN_PROVIDER_LISTING_TIMEOUT_MS,
    webhookMaxInFlight: v.OZAN_WEBHOOK_MAX_IN_FLIGHT,
    webhookMaxPerEndpoint: v.OZAN_WEBHOOK_MAX_PER_ENDPOINT,
    webhookRetentionDays: v.OZAN_WEBHOOK_RETENTION_DAYS,
    analysisConcurrency: v.OZAN_ANALYSIS_CONCURRENCY,
    analysisMaxAttempts: v.OZAN_ANALYSIS_MAX_ATTEMPTS,
    analysisRetryBaseMs: v.OZAN_ANALYSIS_RETRY_BASE_MS,
    analysisTimeoutMs: v.OZAN_ANALYSIS_TIMEOUT_MS,
    testRunConcurrency: v.OZAN_TEST_RUN_CONCURRENCY,
    testRunMaxAttempts: v.OZAN_TEST_RUN_MAX_ATTEMPTS,
    testCaseTimeoutMs: v.OZAN_TEST_CASE_TIMEOUT_MS,
    automationConcurrency: v.OZAN_AUTOMATION_CONCURRENCY,
    automationMaxAttempts: v.OZAN_AUTOMATION_MAX_ATTEMPTS,
    automationRetryBaseMs: v.OZAN_AUTOMATION_RETRY_BASE_MS,
    automationRetentionDays: v.OZAN_AUTOMATION_RETENTION_DAYS,
    engineHost: v.OZAN_ENGINE_HOST ?? v.OZAN_HOST,
    enginePort: v.OZAN_ENGINE_PORT,
    engineSocket: v.OZAN_ENGINE_SOCKET,
    sip: {
      enabled: v.OZAN_SIP === 'on',
      host: v.OZAN_SIP_HOST ?? v.OZAN_HOST,
      port: v.OZAN_SIP_PORT,
      transports: [...new Set(v.OZAN_SIP_TRANSPORTS.split(','))] as ('udp' | 'tcp')[],
      publicAddress: v.OZAN_SIP_PUBLIC_ADDRESS ?? null,
      rtpPortMin: v.OZAN_RTP_PORT_MIN,
      rtpPortMax: v.OZAN_RTP_PORT_MAX,
      rtpIo: v.OZAN_RTP_IO,
      answerDelayMs: v.OZAN_SIP_ANSWER_DELAY_MS,
      ringTimeoutMs: v.OZAN_SIP_RING_TIMEOUT_S * 1000,
      sourceLimits: { perSecond: v.OZAN_SIP_SOURCE_RATE, burst: v.OZAN_SIP_SOURCE_BURST },
    },
    vadSilenceGateDbfs: v.OZAN_VAD_SILENCE_GATE_DBFS === 'off' ? null : v.OZAN_VAD_SILENCE_GATE_DBFS,
    enginePublicUrl: v.OZAN_ENGINE_PUBLIC_URL?.replace(/\/$/, '') ?? null,
    webCallTokenTtlS: v.OZAN_WEB_CALL_TOKEN_TTL_S,
    maxLiveCallsPerOrg: v.OZAN_MAX_LIVE_CALLS_PER_ORG,
    plansFile: v.OZAN_PLANS_FILE ? path.resolve(v.OZAN_PLANS_FILE) : null,
    billing: {
      enabled: v.OZAN_BILLING === 'on',
      currency: v.OZAN_BILLING_CURRENCY,
      pricesFile: v.OZAN_BILLING_PRICES_FILE ?? null,
      payments: v.OZAN_BILLING_PAYMENTS,
      stripeSecretKey: v.OZAN_STRIPE_SECRET_KEY ?? null,
      stripeWebhookSecret: v.OZAN_STRIPE_WEBHOOK_SECRET ?? null,
      stripeApiUrl: v.OZAN_STRIPE_API_URL,
      manualUrl: v.OZAN_BILLING_MANUAL_URL ?? null,
    },
    tokenSigningKey: v.OZAN_TOKEN_SIGNING_KEY ?? null,
    credentialEncryptionKey: v.OZAN_CREDENTIAL_ENCRYPTION_KEY ?? null,
  }
}

export const CONFIG_VARIABLES = Object.keys(VARIABLES) as VarName[]
