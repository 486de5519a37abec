// The request-digest (RFC 2617 §3.2.2.1, RFC 7616 §3.4) against the RFCs' worked examples and
// against hashes spelled out step by step with node:crypto (an oracle independent of digest.ts).
import { createHash } from 'node:crypto'
import t from 'tap'
import { digestHa1, digestResponse, formatNonceCount, parseAlgorithm } from '../../../sip/auth/index.js'

const H = (algorithm: string, data: string | Buffer) => createHash(algorithm).update(data).digest('hex')
const MD5 = { hash: 'MD5', session: false } as const

t.test('the response MUST be RFC 2617 §3.5 example value for Mufasa (MD5, qop=auth)', async (t) => {
  const response = digestResponse({
    algorithm: MD5,
    ha1: digestHa1('MD5', 'Mufasa', 'testrealm@host.com', 'Circle Of Life'),
    nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
    method: 'GET',
    uri: '/dir/index.html',
    qop: 'auth',
    nc: '00000001',
    cnonce: '0a4f113b',
  })
  t.equal(response, '6629fae49393a05397450978507c4ef1')
})

t.test('the responses MUST be RFC 7616 §3.9.1 example values (MD5 and SHA-256)', async (t) => {
  const common = {
    nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
    method: 'GET',
    uri: '/dir/index.html',
    qop: 'auth',
    nc: '00000001',
    cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  } as const
  const realm = 'http-auth@example.org'
  t.equal(digestResponse({ ...common, algorithm: MD5, ha1: digestHa1('MD5', 'Mufasa', realm, 'Circle of Life') }), '8ca523f5e9506fed4657c9700eebdbec')
  const sha = digestResponse({ ...common, algorithm: { hash: 'SHA-256', session: false }, ha1: digestHa1('SHA-256', 'Mufasa', realm, 'Circle of Life') })
  t.equal(sha, '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1')
  // Step by step: HA1, HA2, then KD.
  const ha1 = H('sha256', `Mufasa:${realm}:Circle of Life`)
  const ha2 = H('sha256', 'GET:/dir/index.html')
  t.equal(sha, H('sha256', `${ha1}:${common.nonce}:00000001:${common.cnonce}:auth:${ha2}`))
})

t.test('without qop the response MUST be H(HA1:nonce:HA2) (RFC 2069 compatibility, RFC 2617 §3.2.2.1)', async (t) => {
  const ha1 = H('md5', 'bob:biloxi.com:zanzibar')
  const ha2 = H('md5', 'REGISTER:sip:biloxi.com')
  const response = digestResponse({ algorithm: MD5, ha1, nonce: 'abc', method: 'REGISTER', uri: 'sip:biloxi.com' })
  t.equal(response, H('md5', `${ha1}:abc:${ha2}`))
})

t.test('a -sess algorithm MUST hash nonce and cnonce into A1 (RFC 2617 §3.2.2.2, RFC 7616 §3.4.2)', async (t) => {
  const base = H('sha256', 'bob:biloxi.com:zanzibar')
  const sessHa1 = H('sha256', `${base}:n1:c1`)
  const ha2 = H('sha256', 'INVITE:sip:alice@atlanta.com')
  const response = digestResponse({
    algorithm: { hash: 'SHA-256', session: true },
    ha1: base,
    nonce: 'n1',
    method: 'INVITE',
    uri: 'sip:alice@atlanta.com',
    qop: 'auth',
    nc: '00000001',
    cnonce: 'c1',
  })
  t.equal(response, H('sha256', `${sessHa1}:n1:00000001:c1:auth:${ha2}`))
})

t.test('qop=auth-int MUST hash the body into A2 (RFC 2617 §3.2.2.3)', async (t) => {
  const body = Buffer.from('v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\n')
  const ha1 = H('md5', 'bob:biloxi.com:zanzibar')
  const ha2 = H('md5', `INVITE:sip:alice@atlanta.com:${H('md5', body)}`)
  const response = digestResponse({
    algorithm: MD5,
    ha1,
    nonce: 'n',
    method: 'INVITE',
    uri: 'sip:alice@atlanta.com',
    qop: 'auth-int',
    nc: '00000002',
    cnonce: 'c',
    body,
  })
  t.equal(response, H('md5', `${ha1}:n:00000002:c:auth-int:${ha2}`))
  const empty = digestResponse({
    algorithm: MD5,
    ha1,
    nonce: 'n',
    method: 'INVITE',
    uri: 'sip:alice@atlanta.com',
    qop: 'auth-int',
    nc: '00000002',
    cnonce: 'c',
  })
  t.equal(empty, H('md5', `${ha1}:n:00000002:c:auth-int:${H('md5', `INVITE:sip:alice@atlanta.com:${H('md5', '')}`)}`), 'no body hashes as empty')
})

t.test('SHA-512-256 MUST be SHA-512/256 (RFC 7616 §3.3, RFC 8760)', async (t) => {
  const ha1 = digestHa1('SHA-512-256', 'bob', 'biloxi.com', 'zanzibar')
  t.equal(ha1, H('sha512-256', 'bob:biloxi.com:zanzibar'))
  t.equal(ha1.length, 64)
})

t.test('algorithm names MUST be read case-insensitively; absent means MD5; others are refused', async (t) => {
  t.same(parseAlgorithm(undefined), { hash: 'MD5', session: false })
  t.same(parseAlgorithm('md5-SESS'), { hash: 'MD5', session: true })
  t.same(parseAlgorithm('sha-256'), { hash: 'SHA-256', session: false })
  t.same(parseAlgorithm('SHA-512-256-sess'), { hash: 'SHA-512-256', session: true })
  for (const bad of ['SHA-1', 'AKAv1-MD5', '', '-sess', 'MD5-sess-sess', 'SHA256']) t.equal(parseAlgorithm(bad), undefined, bad)
})

t.test('nc MUST be written as 8 hex digits (RFC 2617 §3.2.2)', async (t) => {
  t.equal(formatNonceCount(1), '00000001')
  t.equal(formatNonceCount(255), '000000ff')
  t.equal(formatNonceCount(0xffffffff), 'ffffffff')
})
