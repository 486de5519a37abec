/**
 * Where an organization's provider base URLs may connect. A stored `openai` or `deepgram` base URL
 * is the organization's choice, so every connection to it goes through the outbound guard
 * (core/net): checked when stored (service.ts) and again when each connection opens, on the address
 * it opens to (the guarded pool below). The operator's OZAN_*_BASE_URL settings and the providers'
 * default URLs use the process's trusted pool instead. The trust decision travels with the URL
 * (OpenAiAccess.origin), never inferred from the URL itself.
 */
import { allowList, ownAddresses, type Config, type GuardOptions, type ResolveHost } from '../../core/index.js'
import { ProviderConnections } from '../../engine/pipeline/providers/connections.js'

export type ProviderOrigin = 'organization' | 'operator'

export interface ProviderNetwork {
  /** OZAN_ALLOW_PRIVATE_CIDRS as the only exception; this server's own addresses refused. */
  guard: GuardOptions
  /** The pool an organization's provider clients connect through: every connection guarded. */
  organizationConnections: ProviderConnections
  close(): Promise<void>
}

export function providerNetwork(config: Pick<Config, 'allowPrivateCidrs' | 'host' | 'engineHost'>, resolve?: ResolveHost): ProviderNetwork {
  const own = ownAddresses([config.host, config.engineHost])
  const guard: GuardOptions = { allow: allowList(config.allowPrivateCidrs), own, ...(resolve && { resolve }) }
  const organizationConnections = new ProviderConnections({ guard })
  return { guard, organizationConnections, close: () => organizationConnections.close() }
}
