import type { AgentConfig } from './config.js'
import type { Definition, WorkflowEdge, WorkflowNode } from './definition.js'
import { outgoing, pickEdge, type Outcome } from './edges.js'
import { pumpEvents } from './event-pump.js'
import { extractValue } from './extract.js'
import { IoFailures, VARIABLE_VALUE_BOUNDS } from './guard.js'
import { cloneJson, jsonExcess } from './json-bounds.js'
import type { RuntimeEvent, RuntimeIO } from './io.js'
import { restateWithLlm } from './collect-llm.js'
import { dtmfKeys, dtmfProblem } from './dtmf-keys.js'
import { keepHeard } from './heard.js'
import { completeLine, llmMissing } from './llm-line.js'
import { conversationTurn } from './llm-turn.js'
import { RuntimeError, isDiscard, type RuntimeState } from './state.js'
import { TemplateBudgetError, renderTemplate } from './templates.js'
import { runToolNode } from './tool-node.js'

// Re-exported: the call imports discardTurn from this module.
export { discardTurn } from './state.js'

const MAX_STEPS_PER_TURN = 100
const MAX_HISTORY = 100

type Emit = (e: RuntimeEvent) => void

/**
 * Executes an agent graph turn by turn. `start` and `turn` yield events as they happen; nothing
 * here waits on storage. If the signal aborts mid-turn, the state is restored to where the turn
 * began (the caller's words stay in the history), so a barged-in turn leaves no half-applied step.
 */
export class GraphRuntime {
  private readonly nodes: Map<string, WorkflowNode>
  private readonly edges: Map<string, WorkflowEdge[]>
  private readonly io: RuntimeIO
  private readonly ioFailures = new IoFailures()
  private session: RuntimeState
  /** Nodes entered in the current turn, bounded by MAX_STEPS_PER_TURN; also keeps a tool node's call id unique. */
  private steps = 0

  constructor(
    private readonly def: Definition,
    private readonly config: AgentConfig,
    io: RuntimeIO,
    state: RuntimeState,
    /** Values for {{system.*}}: caller_number, channel, session_id … */
    private readonly system: Record<string, string> = {},
  ) {
    this.nodes = new Map(def.nodes.map((n) => [n.id, n]))
    this.edges = outgoing(def)
    this.io = this.ioFailures.wrap(io)
    this.session = cloneJson(state)
  }

  get state(): RuntimeState {
    return cloneJson(this.session)
  }

  start(signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    if (this.session.started) throw new RuntimeError('already_started', 'The session has already started')
    return this.run(signal, null, async (emit) => {
      this.session.started = true
      const start = this.def.nodes.find((n) => n.type === 'start')!
      await this.enter(start, emit, signal, null)
    })
  }

  turn(text: string, signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    if (!this.session.started) throw new RuntimeError('not_started', 'The session has not started')
    if (this.session.ended) throw new RuntimeError('session_ended', 'The session has ended')
    return this.run(signal, text, async (emit) => {
      const node = this.session.nodeId ? this.nodes.get(this.session.nodeId) : undefined
      if (!node) return
      if (node.type === 'collect') await this.answerCollect(node, text, emit, signal)
      else if (node.type === 'conversation') await this.converse(node, text, emit, signal)
    })
  }

  /**
   * The transfer the session ended at did not connect (refused, unanswered, failed): the session
   * goes on from that node's `failure` edge, or, with none, ends as `transfer_failed`.
   */
  transferFailed(signal: AbortSignal): AsyncGenerator<RuntimeEvent> {
    const from = this.session.transferFrom ? this.nodes.get(this.session.transferFrom) : undefined
    if (!from || !this.session.ended) throw new RuntimeError('session_ended', 'The session is not waiting on a transfer')
    return this.run(signal, null, async (emit) => {
      this.session.ended = false
      this.session.disposition = null
      this.session.transferFrom = null
      const next = this.follow(from, 'failure')
      const node = next === null ? undefined : this.nodes.get(next)
      if (node) await this.enter(node, emit, signal, null)
      else this.finish('transfer_failed', emit)
    })
  }

  /** Runs one step function as an event stream, with abort restoring the starting state. */
  private async *run(signal: AbortSignal, userText: string | null, body: (emit: Emit) => Promise<void>): AsyncGenerator<RuntimeEvent> {
    let before: RuntimeState
    try {
      before = cloneJson(this.session)
      if (userText !== null) this.remember('user', userText)
    } catch (err) {
      yield this.internalFailure(err)
      yield this.finishEvent('error')
      return
    }
    this.steps = 0
    const { events, settled } = pumpEvents(body)
    try {
      const failure = yield* events
      if (failure && (signal.aborted || this.ioFailures.has(failure))) throw failure
      if (signal.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError')
      if (failure) {
        // Not the provider's and not an abort: a failure of the runtime itself. The session ends as
        // failed with a stable code, instead of a stack reaching the caller (a 500 on a text turn,
        // a 1011 on a call); the events already yielded stay true of what happened.
        yield this.internalFailure(failure)
        yield this.finishEvent('error')
      }
    } catch (err) {
      if (signal.aborted) {
        // The step may still be unwinding (its awaits see the abort); let it finish before
        // putting the state back, or it could write into the restored state.
        await settled
        this.session = before
        // A cut reply still leaves the caller's words said; a discarded turn (the caller went on
        // speaking, so the words return in a longer turn) leaves no trace.
        if (userText !== null && !isDiscard(signal.reason)) this.remember('user', userText)
      }
      throw err
    }
  }

  private internalFailure(err: unknown): RuntimeEvent {
    if (err instanceof TemplateBudgetError) return { type: 'error', code: 'template_too_large', message: err.message, retryable: false }
    return { type: 'error', code: 'runtime_error', message: 'The agent failed on this turn and the session was ended', retryable: false }
  }

  /** Enters a node and keeps going until a node waits for the caller or the session ends. */
  private async enter(node: WorkflowNode, emit: Emit, signal: AbortSignal, pendingUser: string | null): Promise<void> {
    let current = node
    for (;;) {
      signal.throwIfAborted()
      if (++this.steps > MAX_STEPS_PER_TURN) {
        emit({
          type: 'error',
          code: 'graph_loop',
          message: `More than ${MAX_STEPS_PER_TURN} steps in one turn; the graph loops without waiting for the caller`,
          retryable: false,
        })
        return this.finish('error', emit)
      }
      this.session.nodeId = null
      emit({ type: 'node', node_id: current.id, node_type: current.type })
      const next = await this.step(current, emit, signal, pendingUser)
      if (next === 'wait' || this.session.ended) return
      if (next === 'converse') {
        // Entered a conversation node while the caller's words are still unanswered.
        return this.converse(current as Extract<WorkflowNode, { type: 'conversation' }>, pendingUser!, emit, signal)
      }
      const target = next === null ? undefined : this.nodes.get(next)
      if (!target) {
        emit({ type: 'error', code: 'no_matching_edge', message: `No edge from "${current.id}" applies`, retryable: false })
        return this.finish('error', emit)
      }
      current = target
    }
  }

  /** Does one node's work; returns the next node id, 'wait', 'converse', or null (stuck). */
  private async step(node: WorkflowNode, emit: Emit, signal: AbortSignal, pendingUser: string | null): Promise<string | null | 'wait' | 'converse'> {
    switch (node.type) {
      case 'start': {
        const first = node.data.first_message
        if (first && this.config.first_speaker === 'agent') {
          if (first.mode === 'static') this.say(this.render(first.text), 'static', emit)
          else await this.generateLine(first.prompt, emit, signal)
        }
        return this.follow(node, null)
      }
      case 'say':
        this.say(this.render(node.data.text), 'static', emit)
        return this.follow(node, null)
      case 'dtmf': {
        const text = this.render(node.data.digits)
        const digits = dtmfKeys(text)
        if (digits === null)
          emit({ type: 'error', code: 'dtmf_invalid', message: `Node "${node.id}": ${dtmfProblem(text)}; nothing was pressed`, retryable: false })
        else emit({ type: 'agent_dtmf', digits })
        return this.follow(node, null)
      }
      case 'condition':
        return this.follow(node, null)
      case 'collect':
        this.session.attempts = 0
        this.say(this.render(node.data.prompt), 'static', emit)
        this.session.nodeId = node.id
        return 'wait'
      case 'conversation':
        this.session.nodeId = node.id
        return pendingUser === null ? 'wait' : 'converse'
      case 'tool':
        return this.follow(node, await this.runTool(node, emit, signal))
      case 'knowledge':
        await this.answerFromKnowledge(node, emit, signal)
        return this.follow(node, null)
      case 'transfer':
        if (node.data.message) this.say(this.render(node.data.message), 'static', emit)
        emit({ type: 'transfer', target: node.data.target, mode: node.data.mode })
        this.finish('transferred', emit)
        this.session.transferFrom = node.id
        return 'wait'
      case 'end':
        if (node.data.message) this.say(this.render(node.data.message), 'static', emit)
        this.finish(node.data.disposition, emit)
        return 'wait'
    }
  }

  private follow(node: WorkflowNode, outcome: Outcome): string | null {
    return pickEdge(this.edges.get(node.id) ?? [], this.view(), outcome)?.target ?? null
  }

  private async answerCollect(node: Extract<WorkflowNode, { type: 'collect' }>, text: string, emit: Emit, signal: AbortSignal): Promise<void> {
    const options = { choices: node.data.choices, today: this.io.now() }
    let value = extractValue(node.data.value_type, text, options)
    if (value === null && this.io.llm)
      value = await restateWithLlm({
        node,
        text,
        llm: this.io.llm,
        config: this.config,
        now: this.io.now(),
        prompt: this.render(node.data.prompt),
        emit,
        signal,
      })
    if (typeof value === 'number' && ((node.data.min !== undefined && value < node.data.min) || (node.data.max !== undefined && value > node.data.max)))
      value = null
    if (value !== null) {
      this.setVariable(node.data.variable, value, emit)
      return this.continueFrom(node, 'collected', emit, signal)
    }
    this.session.attempts++
    if (this.session.attempts >= node.data.max_attempts) return this.continueFrom(node, 'max_attempts', emit, signal)
    this.say(this.render(node.data.reprompt ?? node.data.prompt), 'static', emit)
    this.session.nodeId = node.id
  }

  private async continueFrom(node: WorkflowNode, outcome: Outcome, emit: Emit, signal: AbortSignal, pendingUser: string | null = null): Promise<void> {
    const next = this.follow(node, outcome)
    const target = next === null ? undefined : this.nodes.get(next)
    if (!target) {
      emit({ type: 'error', code: 'no_matching_edge', message: `No edge from "${node.id}" applies`, retryable: false })
      return this.finish('error', emit)
    }
    return this.enter(target, emit, signal, pendingUser)
  }

  private async converse(node: Extract<WorkflowNode, { type: 'conversation' }>, text: string, emit: Emit, signal: AbortSignal): Promise<void> {
    if (!this.io.llm) {
      emit(llmMissing())
      this.session.nodeId = node.id
      return
    }
    const globals = this.def.nodes.filter((n) => n.global && n.id !== node.id)
    const result = await conversationTurn({
      node,
      text,
      globals,
      edges: this.edges.get(node.id) ?? [],
      config: this.config,
      io: this.io,
      signal,
      emit,
      history: this.session.history,
      variables: this.view(),
      declared: this.def.variables,
      render: (t) => this.render(t),
      setVariable: (name, value) => this.setVariable(name, value, emit),
    })
    if (result.reply) this.remember('assistant', result.reply)
    if (result.transition) {
      const target = this.nodes.get(result.transition)!
      // An intent exit answers the same words the caller just said, if the target converses.
      return this.enter(target, emit, signal, text)
    }
    // Deterministic exits (expressions over extracted variables, or `always`) after the reply.
    const next = this.follow(node, null)
    if (next !== null) return this.enter(this.nodes.get(next)!, emit, signal, null)
    this.session.nodeId = node.id
  }

  private async runTool(node: Extract<WorkflowNode, { type: 'tool' }>, emit: Emit, signal: AbortSignal): Promise<Outcome> {
    const input = Object.fromEntries(Object.entries(node.data.input).map(([k, v]) => [k, this.render(v)]))
    const callId = `${node.id}-${this.steps}`
    if (node.data.say_while_running) this.say(this.render(node.data.say_while_running), 'static', emit)
    return runToolNode({ node, input, callId, tools: this.io.tools, emit, signal, setVariable: (name, value) => this.setVariable(name, value, emit) })
  }

  private async answerFromKnowledge(node: Extract<WorkflowNode, { type: 'knowledge' }>, emit: Emit, signal: AbortSignal): Promise<void> {
    const query = this.render(node.data.query)
    const hits = this.io.knowledge ? await this.io.knowledge.search(query, node.data.top_k, signal) : []
    emit({ type: 'knowledge', query, hits: hits.length })
    if (!hits.length)
      return this.say(this.config.language.startsWith('tr') ? 'Bu konuda bilgim yok.' : "I don't have information about that.", 'knowledge', emit)
    if (!this.io.llm) return this.say(hits[0]!.text, 'knowledge', emit)
    const context = hits.map((h, i) => `[${i + 1}] ${h.text}`).join('\n')
    const instruction = node.data.answer_prompt ? this.render(node.data.answer_prompt) : 'Answer the question briefly using only the sources.'
    await this.generateLine(`${instruction}\n\nSources:\n${context}\n\nQuestion: ${query}`, emit, signal)
  }

  /** One LLM completion spoken as a line (first messages, knowledge answers). */
  private async generateLine(prompt: string, emit: Emit, signal: AbortSignal): Promise<void> {
    if (!this.io.llm) return emit(llmMissing())
    const text = await completeLine({ llm: this.io.llm, prompt: this.render(prompt), config: this.config, emit, signal })
    if (text.trim()) this.say(text.trim(), 'llm', emit)
  }

  private say(text: string, source: 'static' | 'llm' | 'knowledge', emit: Emit): void {
    if (!text.trim()) return
    emit({ type: 'say', text, source })
    this.remember('assistant', text)
  }

  /** Stores a value within VARIABLE_VALUE_BOUNDS; returns false (nothing stored) for one beyond them. */
  private setVariable(name: string, value: unknown, emit: Emit): boolean {
    if (jsonExcess(value, VARIABLE_VALUE_BOUNDS)) return false
    // defineProperty: a variable named __proto__ is a value like any other, not the object's prototype.
    Object.defineProperty(this.session.variables, name, { value, writable: true, enumerable: true, configurable: true })
    emit({ type: 'variable', name, value })
    return true
  }

  private finish(disposition: string, emit: Emit): void {
    emit(this.finishEvent(disposition))
  }

  private finishEvent(disposition: string): RuntimeEvent {
    this.session.ended = true
    this.session.nodeId = null
    this.session.disposition = disposition
    return { type: 'end', disposition }
  }

  /** The caller speaks, so a turn is coming: the LLM client may open its connection now. */
  prewarm(): void {
    this.io.llm?.prewarm?.()
  }

  /**
   * A barge-in cut the last reply: the caller heard only `heard` (a prefix of what the reply's lines
   * say, spaces aside). The history keeps just those words, so the model knows what was said. A
   * reply whose turn was aborted left no lines (the state went back), so the heard words are added.
   * Call it once the turn's generation has settled, before the next turn.
   */
  replyHeard(heard: string): void {
    keepHeard(this.session.history, heard)
  }

  private remember(role: 'user' | 'assistant', text: string): void {
    this.session.history.push({ role, text })
    if (this.session.history.length > MAX_HISTORY) this.session.history.splice(0, this.session.history.length - MAX_HISTORY)
  }

  private view(): Record<string, unknown> {
    const last = [...this.session.history].reverse().find((h) => h.role === 'user')?.text ?? ''
    const now = this.io.now()
    return {
      ...this.session.variables,
      system: { ...this.system, last_user_message: last, current_date: now.toISOString().slice(0, 10), current_time: now.toISOString().slice(11, 16) },
    }
  }

  private render(text: string): string {
    return renderTemplate(text, this.view())
  }
}
