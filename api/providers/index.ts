export { providerRoutes } from './routes.js'
export { ProviderService, DEFAULT_PROVIDER_SERVICE_OPTIONS, type ProviderServiceDeps, type ProviderServiceOptions } from './service.js'
export { CATALOG, catalogProvider, SERVICE_TYPES, type CatalogProvider, type ServiceType } from './catalog.js'
export { ProviderResponse, ProviderResourcesResponse, ProviderResource, FALLBACK_REASONS, type FallbackReason } from './schema.js'
