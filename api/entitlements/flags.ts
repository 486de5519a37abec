/**
 * Feature flags: an organization's own on/off switches. The product reads the keys below (each
 * on by default, so an organization that never sets one sees no change); any other key is the
 * organization's own, stored and listed for its clients to read, and means nothing to Ozan.
 */
export const PRODUCT_FLAGS = {
  web_calls: {
    default: true,
    description: 'Browser web calls. Off: POST /api/v1/calls/web-token and POST /api/v1/calls with channel web answer 403 feature_disabled.',
  },
} as const satisfies Record<string, { default: boolean; description: string }>

export type ProductFlag = keyof typeof PRODUCT_FLAGS
export const PRODUCT_FLAG_KEYS = Object.keys(PRODUCT_FLAGS) as ProductFlag[]

/** Lower-case letters, digits, `_`, `.` and `-`, starting with a letter: safe in a path and a log line. */
export const FLAG_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/
export const MAX_FLAG_KEY_LENGTH = 64
/** Stored flags per organization: enough for real switches, not a key-value store. */
export const MAX_FLAGS_PER_ORGANIZATION = 100
export const MAX_FLAG_DESCRIPTION_LENGTH = 500

export function isProductFlag(key: string): key is ProductFlag {
  return Object.hasOwn(PRODUCT_FLAGS, key)
}
