export { OpenAiLlm, DEFAULT_OPENAI_LLM_OPTIONS, type OpenAiLlmOptions } from './openai.js'
export { retryAfter } from './errors.js'
export { ProviderError, isProviderError, type ProviderCategory, type ProviderErrorCode, type ProviderErrorDetails } from '../errors.js'
export { toSdkMessages, toSdkTools, ToolCallAssembler, type AssembledCall } from './wire.js'
