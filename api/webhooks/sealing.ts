import type { WebhookEndpointRow } from '../../db/index.js'
import type { CredentialCipher } from '../credentials/crypto.js'

type Purpose = 'secret' | 'previous_secret' | 'auth_header'

/**
 * Endpoint secrets sealed with the credential cipher. The additional data binds each value to its
 * organization, endpoint and purpose: a sealed value copied to another endpoint, or a previous
 * secret swapped into the current slot, no longer opens.
 */
export class EndpointSealer {
  constructor(private readonly cipher: CredentialCipher) {}

  get keyId(): string {
    return this.cipher.keyId
  }

  seal(organizationId: string, endpointId: number, purpose: Purpose, value: string): Buffer {
    return this.cipher.seal(Buffer.from(value, 'utf8'), aad(organizationId, endpointId, purpose)).sealed
  }

  open(row: WebhookEndpointRow, purpose: Purpose, sealed: Buffer): string {
    return this.cipher.open({ keyId: row.key_id, sealed }, aad(row.organization_id, row.id, purpose)).toString('utf8')
  }

  authHeader(row: WebhookEndpointRow): string | null {
    return row.auth_header_sealed ? this.open(row, 'auth_header', row.auth_header_sealed) : null
  }
}

function aad(organizationId: string, endpointId: number, purpose: Purpose): Buffer {
  return Buffer.from(JSON.stringify(['ozan.webhook', organizationId, endpointId, purpose]))
}
