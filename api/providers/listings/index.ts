export { ListingError, MAX_LISTING_BYTES, fetchListing, listingFailure } from './fetch-json.js'
export { MAX_LISTED_ITEMS, listDeepgramModels, listOpenAiModels, openAiModelsFor, type RemoteAccess } from './remote.js'
export { listEspeakVoices, parseEspeakVoices } from './espeak.js'
