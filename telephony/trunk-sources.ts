import type { ResolveHost } from '../core/index.js'
import type { SipTrunkRow } from '../db/index.js'
import { parseHostPort, sourceList } from './addresses.js'

/**
 * The addresses a trunk's calls may come from without digest: its allowed_sources, plus where its
 * carrier is (host and outbound proxy, as DNS last resolved them), since a carrier we register
 * with sends its INVITEs from its registrar or proxy. Names are resolved in the background and
 * kept per trunk; a change of the row (updated_at) resolves again.
 */
export class TrunkSources {
  readonly #known = new Map<string, { updatedAt: number; addresses: Set<string> }>()

  constructor(private readonly resolve: ResolveHost) {}

  isSource(trunk: SipTrunkRow, address: string): boolean {
    const allowed = JSON.parse(trunk.allowed_sources) as string[]
    if (allowed.length > 0 && sourceList(allowed).check(address, address.includes(':') ? 'ipv6' : 'ipv4')) return true
    const known = this.#known.get(trunk.id)
    if (!known || known.updatedAt !== trunk.updated_at) void this.refresh(trunk)
    return trunk.host === address || (known?.addresses.has(address) ?? false)
  }

  async refresh(trunk: SipTrunkRow): Promise<void> {
    const hosts = [trunk.host, ...(trunk.outbound_proxy ? [parseHostPort(trunk.outbound_proxy)?.host] : [])].filter((h): h is string => !!h)
    const addresses = new Set<string>()
    for (const host of hosts) {
      try {
        for (const a of await this.resolve(host)) addresses.add(a.address)
      } catch {
        // Unresolvable now: the allowed sources still hold, and the next INVITE tries again.
      }
    }
    this.#known.set(trunk.id, { updatedAt: trunk.updated_at, addresses })
  }

  forget(trunkId: string): void {
    this.#known.delete(trunkId)
  }
}
