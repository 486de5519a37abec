import type { CredentialCipher } from '../credentials/crypto.js'

/**
 * A tool version's secret headers, sealed with the credential cipher. The additional data binds
 * organization, tool and version: a sealed value copied to another tool or version does not open.
 */
export class ToolSecretSealer {
  constructor(private readonly cipher: CredentialCipher) {}

  seal(at: { organizationId: string; toolId: string; version: number }, headers: Record<string, string>): { sealed: Buffer; keyId: string } | null {
    if (!Object.keys(headers).length) return null
    return { sealed: this.cipher.seal(Buffer.from(JSON.stringify(headers), 'utf8'), aad(at)).sealed, keyId: this.cipher.keyId }
  }

  open(at: { organizationId: string; toolId: string; version: number }, stored: { sealed: Buffer | null; keyId: string | null }): Record<string, string> {
    if (!stored.sealed || !stored.keyId) return {}
    return JSON.parse(this.cipher.open({ keyId: stored.keyId, sealed: stored.sealed }, aad(at)).toString('utf8')) as Record<string, string>
  }
}

function aad(at: { organizationId: string; toolId: string; version: number }): Buffer {
  return Buffer.from(JSON.stringify(['ozan.tool', at.organizationId, at.toolId, at.version]))
}
