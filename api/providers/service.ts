import { createHash } from 'node:crypto'
import type { Clock, Config, Logger } from '../../core/index.js'
import { providerConnections, type ProviderConnections } from '../../engine/pipeline/providers/connections.js'
import type { OpenAiAccess } from '../credentials/openai-access.js'
import type { DeepgramAccess } from '../credentials/deepgram-access.js'
import { ApiError } from '../http/errors.js'
import type { Principal } from '../security/principal.js'
import { ListingCache } from './cache.js'
import { CATALOG, catalogProvider, type CatalogProvider, type LiveSource } from './catalog.js'
import { ListingError, listDeepgramModels, listEspeakVoices, listOpenAiModels, openAiModelsFor } from './listings/index.js'
import type { FallbackReason, ProviderResourceT, ProviderResourcesResponseT, ProviderResponseT } from './schema.js'

export interface ProviderServiceOptions {
  /** How long a live listing is served from memory (OZAN_PROVIDER_RESOURCES_TTL_S). */
  ttlMs: number
  /** How long a failed listing is remembered, so a provider that is down is not asked on every request. */
  failureTtlMs: number
  /** The whole listing: connect, send, read (and `espeak-ng --voices`). */
  timeoutMs: number
  /** Listings kept at once (one per provider and credential in use). */
  maxEntries: number
  espeakBinary: string
}

export const DEFAULT_PROVIDER_SERVICE_OPTIONS: ProviderServiceOptions = {
  ttlMs: 60_000,
  failureTtlMs: 10_000,
  timeoutMs: 5_000,
  maxEntries: 1_000,
  espeakBinary: 'espeak-ng',
}

export interface ProviderServiceDeps {
  config: Pick<Config, 'openaiApiKey' | 'deepgramApiKey'>
  /** The organization's OpenAI-compatible access: its stored "openai" credential, else the platform's (openai-access.ts). */
  openAiAccess: (organizationId: string) => OpenAiAccess | undefined
  /** The organization's Deepgram access: its stored "deepgram" credential, else the platform's (deepgram-access.ts). */
  deepgramAccess: (organizationId: string) => DeepgramAccess | undefined
  credentials: { reveal(organizationId: string, provider: string): Readonly<Record<string, string>> | null }
  /** Providers the organization has a stored credential for (no secret opened). */
  storedProviders: (organizationId: string) => readonly string[]
  /** The guarded pool organizations' own base URLs connect through (api/credentials/provider-network.ts). */
  organizationConnections: ProviderConnections
  /** The pool for the operator's destinations; default the process's. */
  operatorConnections?: ProviderConnections
  clock: Clock
  logger: Logger
  options?: Partial<ProviderServiceOptions>
}

/** One provider's raw listing, before it is cut to a stage. */
type Listing =
  | { source: 'openai_models'; ids: string[] }
  | { source: 'deepgram_models'; stt: ProviderResourceT[]; tts: ProviderResourceT[] }
  | { source: 'espeak_voices'; voices: ProviderResourceT[] }

type Outcome = { ok: true; listing: Listing; fetchedAt: number } | { ok: false; reason: Exclude<FallbackReason, 'no_credential'>; detail: string }

/** How to list one provider for one organization, or why it cannot be. */
type Lister = { credential: 'organization' | 'platform' | null; cacheKey: string; run(signal: AbortSignal): Promise<Listing> }

const fingerprint = (...parts: (string | null | undefined)[]) =>
  createHash('sha256')
    .update(parts.map((p) => p ?? '').join('\0'))
    .digest('base64url')
    .slice(0, 32)

/**
 * The provider catalog and each provider's live voices and models. A listing runs on the
 * organization's stored credential for the provider, else the platform's, never another
 * organization's: its cache key holds the credential's fingerprint (and, for an organization's,
 * the organization), so a replaced credential is not answered from the old one's listing either.
 */
export class ProviderService {
  private readonly options: ProviderServiceOptions
  private readonly cache: ListingCache<Outcome>
  /** Listings under way, so concurrent requests for one share a single upstream request. */
  private readonly inFlight = new Map<string, Promise<Outcome>>()

  constructor(private readonly deps: ProviderServiceDeps) {
    this.options = { ...DEFAULT_PROVIDER_SERVICE_OPTIONS, ...deps.options }
    for (const k of ['ttlMs', 'failureTtlMs', 'timeoutMs'] as const)
      if (!Number.isFinite(this.options[k]) || this.options[k] < 0) throw new RangeError(`ProviderService: ${k} must be >= 0`)
    this.cache = new ListingCache(deps.clock, this.options.maxEntries)
  }

  list(p: Principal): ProviderResponseT[] {
    const stored = new Set(this.deps.storedProviders(p.organizationId))
    return CATALOG.map((e) => ({
      service_type: e.service_type,
      key: e.key,
      name: e.name,
      credential_provider: e.credential_provider,
      requires_credential: e.requires_credential,
      organization_credential: e.credential_provider !== null && stored.has(e.credential_provider),
      platform_credential:
        (e.credential_provider === 'openai' && Boolean(this.deps.config.openaiApiKey)) ||
        (e.credential_provider === 'deepgram' && Boolean(this.deps.config.deepgramApiKey)),
      capabilities: {
        streaming: e.streaming,
        languages: e.languages,
        custom_models: e.models === null,
        custom_voices: e.voices === null && e.service_type === 'tts',
        live_resources: true,
      },
      default_model: e.default_model,
      default_voice: e.default_voice,
    }))
  }

  async resources(p: Principal, serviceType: string, key: string): Promise<ProviderResourcesResponseT> {
    const entry = catalogProvider(serviceType, key)
    if (!entry) throw new ApiError('not_found')
    const lister = this.lister(p.organizationId, entry)
    if (!lister) return this.fallback(entry, 'no_credential', null)
    const outcome = await this.listing(lister, { organization_id: p.organizationId, provider: entry.key, live_source: entry.live_source })
    if (!outcome.ok) return this.fallback(entry, outcome.reason, lister.credential)
    const { models, voices } = project(entry, outcome.listing)
    return {
      service_type: entry.service_type,
      key: entry.key,
      source: 'live',
      fallback_reason: null,
      credential: lister.credential,
      fetched_at: new Date(outcome.fetchedAt).toISOString(),
      models,
      voices,
    }
  }

  /**
   * The voice ids of a provider whose voices are local (espeak-ng), from the same cached listing
   * GET …/resources answers with; null for another provider or when the listing failed.
   */
  async installedVoices(key: string): Promise<string[] | null> {
    const entry = catalogProvider('tts', key)
    if (entry?.live_source !== 'espeak_voices') return null
    const lister = this.lister('', entry)
    const outcome = lister && (await this.listing(lister, { provider: entry.key, live_source: entry.live_source }))
    return outcome?.ok && outcome.listing.source === 'espeak_voices' ? outcome.listing.voices.map((v) => v.id) : null
  }

  private fallback(entry: CatalogProvider, reason: FallbackReason, credential: 'organization' | 'platform' | null): ProviderResourcesResponseT {
    const { models, voices } = staticResources(entry)
    return { service_type: entry.service_type, key: entry.key, source: 'static', fallback_reason: reason, credential, fetched_at: null, models, voices }
  }

  /**
   * The cached outcome, else one upstream request (shared by concurrent callers), remembered for
   * its TTL. A failure is logged once per upstream attempt (`context`: who asked, never a key), not
   * once per request it is answered to.
   */
  private listing(lister: Lister, context: Record<string, string>): Promise<Outcome> {
    const cached = this.cache.get(lister.cacheKey)
    if (cached) return Promise.resolve(cached)
    const running = this.inFlight.get(lister.cacheKey)
    if (running) return running
    const signal = AbortSignal.timeout(this.options.timeoutMs)
    const started = lister
      .run(signal)
      .then((listing): Outcome => ({ ok: true, listing, fetchedAt: this.deps.clock.now() }))
      .catch((err): Outcome => {
        if (err instanceof ListingError) return { ok: false, reason: err.reason, detail: err.message }
        this.deps.logger.error({ err }, 'provider listing threw unexpectedly')
        return { ok: false, reason: 'upstream_error', detail: 'unexpected error' }
      })
      .then((outcome) => {
        if (!outcome.ok)
          this.deps.logger.warn({ ...context, reason: outcome.reason, detail: outcome.detail }, 'provider listing failed; the static catalog is answered')
        this.cache.set(lister.cacheKey, outcome, outcome.ok ? this.options.ttlMs : this.options.failureTtlMs)
        this.inFlight.delete(lister.cacheKey)
        return outcome
      })
    this.inFlight.set(lister.cacheKey, started)
    return started
  }

  /** A stored credential's fields, or null (none stored, or it no longer decrypts: logged). */
  private stored(organizationId: string, provider: string): Readonly<Record<string, string>> | null {
    try {
      return this.deps.credentials.reveal(organizationId, provider)
    } catch (err) {
      this.deps.logger.warn({ organization_id: organizationId, provider, err: (err as Error).message }, 'stored credential cannot be decrypted')
      return null
    }
  }

  private fetchFor(guarded: boolean): typeof globalThis.fetch {
    return guarded ? this.deps.organizationConnections.fetch : (this.deps.operatorConnections ?? providerConnections).fetch
  }

  private lister(organizationId: string, entry: CatalogProvider): Lister | null {
    const source: LiveSource = entry.live_source
    if (source === 'espeak_voices') {
      const { espeakBinary, timeoutMs } = this.options
      return {
        credential: null,
        cacheKey: fingerprint(source, espeakBinary),
        run: async () => ({ source, voices: await listEspeakVoices(espeakBinary, timeoutMs) }),
      }
    }
    if (source === 'deepgram_models') {
      const access = this.deps.deepgramAccess(organizationId)
      if (!access) return null
      const { apiKey, baseUrl, credential } = access
      const fetch = this.fetchFor(access.origin === 'organization')
      return {
        credential,
        // The platform's listing is the same for every organization: one entry serves them all.
        cacheKey: fingerprint(source, credential, credential === 'organization' ? organizationId : null, baseUrl, apiKey),
        run: async (signal) => ({ source, ...(await listDeepgramModels({ apiKey, baseUrl, fetch, signal })) }),
      }
    }
    const access = this.deps.openAiAccess(organizationId)
    if (!access) return null
    const credential = this.stored(organizationId, 'openai')?.api_key === access.apiKey ? 'organization' : 'platform'
    const fetch = this.fetchFor(access.origin === 'organization')
    return {
      credential,
      // The platform's listing is the same for every organization: one entry serves them all.
      cacheKey: fingerprint(source, credential, credential === 'organization' ? organizationId : null, access.baseURL, access.apiKey, access.organization),
      run: async (signal) => ({
        source,
        ids: await listOpenAiModels({ apiKey: access.apiKey, baseUrl: access.baseURL, organization: access.organization, fetch, signal }),
      }),
    }
  }
}

const named = (id: string, languages: string[]): ProviderResourceT => ({ id, name: id, languages })

/** The catalog's lists; an open-ended one (any name) offers its default. */
function staticResources(entry: CatalogProvider): { models: ProviderResourceT[]; voices: ProviderResourceT[] } {
  const list = (closed: string[] | null, fallback: string | null) => (closed ?? (fallback ? [fallback] : [])).map((id) => named(id, entry.languages))
  return { models: list(entry.models, entry.default_model), voices: list(entry.voices, entry.default_voice) }
}

/** A provider's listing cut to one stage. What a provider cannot list (OpenAI's voices) stays the catalog's. */
function project(entry: CatalogProvider, listing: Listing): { models: ProviderResourceT[]; voices: ProviderResourceT[] } {
  const fallback = staticResources(entry)
  if (listing.source === 'espeak_voices') return { models: [], voices: listing.voices }
  if (listing.source === 'deepgram_models') return entry.service_type === 'tts' ? { models: [], voices: listing.tts } : { models: listing.stt, voices: [] }
  const stage = entry.service_type
  return { models: openAiModelsFor(stage, listing.ids).map((id) => named(id, [])), voices: fallback.voices }
}
