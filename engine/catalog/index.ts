export { PROVIDERS, findProvider, type ProviderEntry, type ServiceType } from './providers.js'
