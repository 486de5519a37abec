import type { SipTrunkRow } from '../../db/index.js'
import type { CredentialCipher } from '../credentials/crypto.js'

/**
 * Trunk passwords sealed with the credential cipher. The additional data binds the value to its
 * organization and trunk: a sealed password copied onto another trunk, or another organization's
 * row, no longer opens.
 */
export class TrunkPasswordSealer {
  constructor(private readonly cipher: CredentialCipher) {}

  seal(organizationId: string, trunkId: string, password: string): { keyId: string; sealed: Buffer } {
    const clear = Buffer.from(password, 'utf8')
    const out = this.cipher.seal(clear, aad(organizationId, trunkId))
    clear.fill(0)
    return out
  }

  /** The password in clear, for the SIP service's digest answers; null when none is set. Throws CredentialDecryptError. */
  open(row: Pick<SipTrunkRow, 'organization_id' | 'id' | 'key_id' | 'password_sealed'>): string | null {
    if (!row.password_sealed || !row.key_id) return null
    return this.cipher.open({ keyId: row.key_id, sealed: row.password_sealed }, aad(row.organization_id, row.id)).toString('utf8')
  }
}

function aad(organizationId: string, trunkId: string): Buffer {
  return Buffer.from(JSON.stringify(['ozan.sip_trunk', organizationId, trunkId, 'password']))
}
