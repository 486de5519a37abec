/**
 * Local servers that speak the real REST APIs the integrations in this folder's parent call
 * (Slack, Cal.com, HubSpot), for tests: each answers from its input, keeps what it accepted, and
 * fails on demand. README.md says what each one checks and answers.
 */
export type { InjectedFailure, LoggedRequest } from './stand-in-http.js'
export { startSlackStandIn, DEFAULT_CHANNELS, type SlackStandIn, type SlackStandInOptions, type PostedMessage } from './slack-server.js'
export {
  startCalcomStandIn,
  API_VERSION,
  DEFAULT_EVENT_TYPES,
  type CalcomStandIn,
  type CalcomStandInOptions,
  type CalBooking,
  type CalEventType,
} from './calcom-server.js'
export { startHubspotStandIn, type HubspotStandIn, type HubspotContact } from './hubspot-server.js'
