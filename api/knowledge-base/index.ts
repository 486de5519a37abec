export { KnowledgeService } from './service.js'
export { knowledgeBaseRoutes } from './routes.js'
export { chunkText, DEFAULT_CHUNKING, type Chunk, type ChunkingOptions } from './chunking.js'
export { affordableGroups, matchExpression, queryTerms, snippet, termGroups, SCORED_MATCHES_BUDGET, type Term } from './search.js'
