import t from 'tap'
import { SessionCallRecorder } from '../../../api/calls/session-recorder.js'
import { InProcessBus, ManualClock, type DomainEvent } from '../../../core/index.js'

// On a web or phone call the runtime's tool_call reaches the webhook as function.called through the
// call's recorder: a library tool's id, name and version go with it; an integration action has none.

t.test('a call announces a library tool call as function.called with the tool', async (t) => {
  const bus = new InProcessBus()
  const seen: DomainEvent[] = []
  bus.subscribe((e) => void seen.push(e))
  const recorder = new SessionCallRecorder({
    repos: {} as never,
    bus,
    clock: new ManualClock(1_700_000_000_000),
    logger: {} as never,
    organizationId: 'org-1',
    environmentId: 'env-1',
    workflowId: 'wf-1',
    version: 2,
    definition: '{}',
    config: '{}',
    initial: { variables: {} } as never,
    callId: 'call-uuid-1',
    pending: false,
  })
  const tool = { id: '0f6d6a4e-7f2b-4c55-9d0a-3a1f0e9b1c11', name: 'lookup_order', version: 3 }
  recorder.event('tool_call', { call_id: 'c1', integration: 'http', action: 'request', input: { order_id: '7' }, tool })
  recorder.event('tool_call', { call_id: 'c2', integration: 'slack', action: 'post_message', input: { text: 'hi' } })
  await new Promise((r) => setImmediate(r))
  const called = seen.filter((e) => e.type === 'function.called')
  t.match(called, [
    { organizationId: 'org-1', data: { call_id: 'c1', integration: 'http', action: 'request', input: { order_id: '7' }, tool } },
    { data: { call_id: 'c2', integration: 'slack' } },
  ])
  t.notOk('tool' in called[1]!.data, 'an integration action carries no tool field')
})
