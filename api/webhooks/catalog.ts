/**
 * The subscribable event types: the spec's eleven, plus `session.analysis.completed` (the
 * post-call analysis the spec mentions without naming). Each entry's example is the `data` of a
 * delivery as the emitting service builds it; docs/webhooks.md shows the same payloads, and a test
 * keeps the examples of emitted types in step with what the services really publish.
 *
 * Every payload also carries `occurred_at` (ISO 8601), added by the outbox: redeliveries can arrive
 * after later events, so receivers order by it, not by arrival.
 */
export interface EventType {
  type: string
  description: string
  example: Record<string, unknown>
}

const SESSION = '3f0c8e5e-8d1f-4b43-9a77-2f4f5c1d8a10'
const WORKFLOW = '9b2d7c44-1e0a-4f6e-8a3b-5c6d7e8f9a0b'
const AT = '2026-11-22T10:15:30.000Z'
const TRUNK = '5e7a2c10-3b4d-4c6e-9f81-a2b3c4d5e6f7'

export const EVENT_TYPES: readonly EventType[] = [
  {
    type: 'session.started',
    description: 'A session or call has started (after the agent’s opening ran).',
    example: { session_uuid: SESSION, workflow_uuid: WORKFLOW, version: 3, channel: 'text', variables: { customer_name: 'Ayşe' }, occurred_at: AT },
  },
  {
    type: 'session.completed',
    description: 'A session or call finished. Carries the end-of-call report: transcript, variables, cost, latency. No recording address.',
    example: {
      session_uuid: SESSION,
      workflow_uuid: WORKFLOW,
      version: 3,
      channel: 'text',
      status: 'completed',
      disposition: 'booked',
      started_at: '2026-11-22T10:14:02.000Z',
      ended_at: AT,
      duration_ms: 88000,
      transcript: [
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'I would like an appointment.' },
      ],
      variables: { customer_name: 'Ayşe', date: '2026-11-25' },
      cost: { prompt_tokens: 812, completion_tokens: 96, amount_minor: null, currency: null },
      latency: { turns: [{ turn: 1, duration_ms: 640 }], average_turn_ms: 640 },
      occurred_at: AT,
    },
  },
  {
    type: 'session.analysis.completed',
    description:
      'The post-call analysis of a finished session ended (docs/analysis.md): status completed with the summary, success evaluation and extracted data its agent asked for, or failed / skipped with the reason.',
    example: {
      session_uuid: SESSION,
      workflow_uuid: WORKFLOW,
      version: 3,
      channel: 'web',
      status: 'completed',
      summary: 'Ayşe called to book a table and was booked for 25 November at 19:00.',
      success_evaluation: { rubric: 'pass_fail', success: true, score: null, reason: 'A booking was made and confirmed.' },
      structured_data: { name: 'Ayşe', date: '2026-11-25', party_size: 2 },
      error: null,
      occurred_at: AT,
    },
  },
  {
    type: 'transcript.updated',
    description: 'A new turn was added to a live session (one event per user or agent utterance).',
    example: { session_uuid: SESSION, workflow_uuid: WORKFLOW, role: 'user', text: 'I would like an appointment.', occurred_at: AT },
  },
  {
    type: 'function.called',
    description: 'The agent invoked a tool (an integration action) during a live session or call.',
    example: {
      session_uuid: SESSION,
      workflow_uuid: WORKFLOW,
      call_id: 'call_1',
      integration: 'slack',
      action: 'send_message',
      input: { channel: '#bookings', text: 'New booking for Ayşe' },
      occurred_at: AT,
    },
  },
  {
    type: 'voicemail.detected',
    description: 'An outbound call placed by the service was answered by a machine (carrier answering-machine detection).',
    example: { session_uuid: SESSION, workflow_uuid: WORKFLOW, to: '+905551112233', detected_by: 'carrier', occurred_at: AT },
  },
  {
    type: 'call.recording.ready',
    description: 'A recording finished processing. Fetch the audio from the session with an API key.',
    example: { session_uuid: SESSION, workflow_uuid: WORKFLOW, duration_ms: 88000, occurred_at: AT },
  },
  {
    type: 'sip.trunk.registered',
    description: 'A SIP trunk registered with its carrier and can take calls.',
    example: { trunk_id: TRUNK, name: 'Carrier A', registrar: 'sip.carrier.example', occurred_at: AT },
  },
  {
    type: 'sip.trunk.down',
    description: 'A SIP trunk lost its registration; calls to its numbers will not arrive.',
    example: { trunk_id: TRUNK, name: 'Carrier A', registrar: 'sip.carrier.example', reason: 'registration timed out', occurred_at: AT },
  },
  {
    type: 'workflow.published',
    description: 'An agent version was published (also for the version 1 a promotion creates).',
    example: {
      workflow_uuid: WORKFLOW,
      name: 'Reception',
      version: 4,
      environment: 'dev',
      environment_id: '6a1f0b7e-2c3d-4e5f-8a9b-0c1d2e3f4a5b',
      published_by: 'c0ffee00-1111-4222-8333-444455556666',
      occurred_at: AT,
    },
  },
  {
    type: 'workflow.promoted',
    description: 'An agent was promoted to another environment.',
    example: {
      workflow_uuid: WORKFLOW,
      target_workflow_uuid: '1d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6',
      name: 'Reception',
      source_environment: 'dev',
      target_environment: 'prod',
      target_environment_id: '7b2a1c0d-3e4f-4a5b-9c8d-1e2f3a4b5c6d',
      source_version: 4,
      promoted_by: 'c0ffee00-1111-4222-8333-444455556666',
      occurred_at: AT,
    },
  },
  {
    type: 'member.invited',
    description: 'A member was invited to the organization (sent to the endpoints of every environment).',
    example: {
      invitation_id: 'a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d',
      email: 'deniz@example.com',
      role: 'developer',
      invited_by: 'c0ffee00-1111-4222-8333-444455556666',
      expires_at: '2026-11-29T10:15:30.000Z',
      occurred_at: AT,
    },
  },
]

export const EVENT_TYPE_NAMES: ReadonlySet<string> = new Set(EVENT_TYPES.map((e) => e.type))
