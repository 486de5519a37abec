export { Definition, Node, Edge, Condition, Variable, SYSTEM_VARIABLES, NODE_TYPES, COLLECT_TYPES, LIMITS } from './definition.js'
export type { WorkflowNode, WorkflowEdge, EdgeCondition, NodeType } from './definition.js'
export { LibraryToolRef, isLibraryRef, type AnyToolRef } from './definition.js'
export {
  MAX_JSON_DEPTH,
  boundedJson,
  boundedJsonObject,
  cloneJson,
  describeExcess,
  jsonExcess,
  pathOf,
  type Frame as JsonFrame,
  type JsonBounds,
  type JsonExcess,
} from './json-bounds.js'
export { validateDefinition, type GraphProblem } from './validate.js'
export { checkExpression, OPERATORS } from './expressions.js'
export { checkTemplate, renderTemplate } from './templates.js'
export { AgentConfig, DEFAULT_CONFIG, DEFAULT_BACKCHANNELS, INSTALLED_VOICE_NAME } from './config.js'
export { AnalysisConfig, ANALYSIS_SCHEMA_BOUNDS, BoundedJsonSchema, analysisRequested, compileAnalysisSchema, isStrictSchema } from './analysis-config.js'
export { GraphRuntime } from './runtime.js'
export { initialState, RuntimeError, discardTurn, type RuntimeState } from './state.js'
export { extractValue, type CollectType } from './extract.js'
export type {
  RuntimeIO,
  RuntimeEvent,
  LlmClient,
  LlmChunk,
  LlmRequest,
  ChatMessage,
  ChatTool,
  ToolRunner,
  LibraryTool,
  ToolOutcome,
  KnowledgeBase,
  KnowledgeHit,
} from './io.js'
