export { OpenAiLlm, DEFAULT_OPENAI_LLM_OPTIONS, type OpenAiLlmOptions } from './openai.js'
export { LlmError, retryAfter, type LlmErrorCode, type LlmErrorDetails } from './errors.js'
export { toSdkMessages, toSdkTools, ToolCallAssembler, type AssembledCall } from './wire.js'
