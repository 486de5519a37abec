/**
 * The integration catalog. The API route (`POST /integrations/{key}/run`) and the graph runtime's
 * tool runner both execute actions from this one list.
 */
import type { IntegrationDef } from './action.js'
import { calcomIntegration } from './calcom.js'
import { httpIntegration } from './http.js'
import { hubspotIntegration } from './hubspot.js'
import { slackIntegration } from './slack.js'

export const INTEGRATIONS: readonly IntegrationDef[] = [httpIntegration, slackIntegration, calcomIntegration, hubspotIntegration]

export function findIntegration(key: string): IntegrationDef | undefined {
  return INTEGRATIONS.find((i) => i.key === key)
}
