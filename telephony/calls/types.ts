/** What the shell needs to run a phone call (api/calls/phone-calls.ts prepares it). */
export interface PhoneCallStart {
  callId: string
  organizationId: string
  environmentId: string
  workflowId: string
  /** E.164 (or whatever the carrier sent in From, when it is not a number). */
  callerNumber: string
  calledNumber: string
  direction: 'inbound' | 'outbound'
  variables?: Record<string, unknown>
}
