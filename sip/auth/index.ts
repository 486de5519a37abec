export { authorizeRequest, type AuthorizeOptions } from './authorize.js'
export { type ReadChallenge, readChallenge } from './challenge.js'
export {
  type AuthorizationField,
  challengesOf,
  DEFAULT_DIGEST_CLIENT,
  type DigestAccount,
  DigestClient,
  type DigestClientOptions,
  type DigestRequestInfo,
} from './client.js'
export {
  algorithmName,
  type DigestAlgorithm,
  type DigestHashName,
  digestHa1,
  digestHash,
  digestResponse,
  type DigestResponseInput,
  formatNonceCount,
  parseAlgorithm,
} from './digest.js'
export { DigestError, type DigestErrorCode, type DigestResult } from './errors.js'
export { issueNonce, MIN_NONCE_SECRET_BYTES, readNonce } from './nonce.js'
export {
  DEFAULT_DIGEST_VERIFIER,
  type DigestRefusal,
  type DigestVerification,
  DigestVerifier,
  type DigestVerifierOptions,
  type StoredSecret,
} from './verifier.js'
