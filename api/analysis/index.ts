export { AnalysisWorker, DEFAULT_ANALYSIS_OPTIONS, type AnalysisWorkerOptions, type AnalysisWorkerDeps } from './worker.js'
export { analysisLlmFor, type AnalysisLlm, type AnalysisLlmFor, type AnalysisCompletion } from './llm.js'
export { SessionAnalysis, analysisView, analysisEvent, type SessionAnalysisT } from './view.js'
export { buildRequest, checkAnswer, transcriptText, answerSchema, MAX_TRANSCRIPT_CHARS, type AnalysisResult, type TranscriptLine } from './prompt.js'
