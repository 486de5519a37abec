/**
 * What the voice bench records about each agent reply and each barge-in, joined from three
 * sources: the simulated caller (client side of the engine's WebSocket), the stand-in providers'
 * logs, and the engine's own `metrics` events. The callers and the stand-ins run in the bench
 * process, so every instant below is that process's performance.now() (ms); the engine runs in
 * another process and only ever contributes durations.
 */

export interface ReplyTimeline {
  /** Caller: the last sample of the user's utterance was sent. */
  speechEndAt: number
  /** Caller: the first byte of the agent's reply audio arrived; null when none did. */
  firstAudioAt: number | null
  /** The agent's configured end-of-turn silence wait (ms). */
  endOfTurnWaitMs: number
  /**
   * Whether the agent generates preemptively: the LLM starts before the wait ends, on the final
   * transcript or on an interim that already holds the final's words.
   */
  preemptive: boolean
  /**
   * With preemption, the silence the engine waits before speculating on a partial transcript
   * (its DEFAULT_ENDPOINTER.speculateAfterMs): a configured wait, like endOfTurnWaitMs.
   */
  speculateAfterMs?: number
  /**
   * STT stand-in: when it sent this utterance's final transcript, the delay it injected, and when
   * it first sent the final's whole text (an interim, or else the final itself).
   */
  stt: { finalSentAt: number; injectedMs: number; completeAt?: number } | null
  /**
   * LLM stand-in: request arrival, each content chunk's send instant, the finish chunk's (null when
   * not streamed or not sent), the first-token delay it injected.
   */
  llm: { receivedAt: number; chunkSentAt: number[]; finishSentAt?: number | null; injectedFirstTokenMs: number } | null
  /** TTS stand-in (first synthesis request of the reply): arrival, first byte sent, the delay it injected. */
  tts: { receivedAt: number; firstByteSentAt: number; injectedMs: number } | null
}

export interface BargeInTimeline {
  /** Caller: the first sample of the interrupting speech was sent. */
  speechOnsetAt: number
  /** Caller: the last agent audio byte arrived before the agent went quiet (or `clear` arrived). */
  lastAgentAudioAt: number
  /** Engine (`metrics.barge_in_stop_ms`): speech-onset decision → agent audio stopped. */
  engineStopMs: number | null
}
