import t from 'tap'
import {
  addressRefusal,
  allowList,
  assertPublicUrl,
  checkHost,
  destinationRefusal,
  embeddedIpv4,
  DestinationRefusedError,
  ownAddresses,
  type ResolveHost,
} from '../../../core/index.js'

/** Resolves the names it is given, like DNS would; anything else does not exist. */
const fakeDns =
  (table: Record<string, string[]>): ResolveHost =>
  async (host) => {
    const answers = table[host]
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }

async function refusal(url: string, o: Parameters<typeof assertPublicUrl>[1] = {}): Promise<string | null> {
  try {
    await assertPublicUrl(url, o)
    return null
  } catch (err) {
    if (err instanceof DestinationRefusedError) return err.reason
    throw err
  }
}

t.test('IPv4 special-purpose ranges are refused with the reason named', async (t) => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.10.1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
  ]
  for (const [ip, reason] of cases) t.equal(addressRefusal(ip), reason, ip)
  for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '169.255.0.1', '11.0.0.1', '223.255.255.255'])
    t.equal(addressRefusal(ip), null, `${ip} is public`)
})

t.test('IPv6 ranges and IPv6 forms that carry a refused IPv4 address are refused', async (t) => {
  const cases: [string, string][] = [
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'], // IPv4-compatible
    ['::ffff:0:7f00:1', 'loopback'], // SIIT IPv4-translated
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'metadata'], // NAT64
    ['2002:c0a8:0101::1', 'private'],
    ['2002:7f00:1::', 'loopback'], // 6to4
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['64:ff9b:1::1', 'reserved'],
  ]
  for (const [ip, reason] of cases) t.equal(addressRefusal(ip), reason, ip)
  for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])
    t.equal(addressRefusal(ip), null, `${ip} is public`)
  t.equal(embeddedIpv4('::ffff:10.1.2.3'), '10.1.2.3')
  t.equal(embeddedIpv4('2002:0a01:0203::'), '10.1.2.3')
  t.equal(embeddedIpv4('2606:4700::1'), null)
  t.equal(embeddedIpv4('::1'), null, '::1 is loopback itself, not a compatible 0.0.0.1')
})

t.test('decimal, octal, hex and short IPv4 spellings in URLs are refused like the dotted form', async (t) => {
  const spellings = [
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0x7F.0.0.0x1:8080/x',
    'http://127.000.000.001/',
    'https://[::1]:443/',
    'http://[::ffff:127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
  ]
  for (const url of spellings) t.equal(await refusal(url), 'loopback', url)
  t.equal(await refusal('http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/'), 'metadata')
  t.equal(await refusal('http://2852039166/'), 'metadata', '169.254.169.254 as one decimal number')
  t.equal(await refusal('http://[fd00:ec2::254]/'), 'metadata')
  t.equal(await refusal('http://012.0.0.1/'), 'private', 'octal 012 is 10')
  t.equal(await refusal('http://0/'), 'unspecified')
  t.equal(await refusal('http://8.8.8.8:8443/path'), null, 'a public address on any port passes')
})

t.test('only http and https, and no credentials in the URL', async (t) => {
  for (const url of ['ftp://8.8.8.8/', 'file:///etc/passwd', 'gopher://8.8.8.8:70/', 'data:text/plain,hi', 'ws://8.8.8.8/'])
    t.equal(await refusal(url), 'scheme', url)
  t.equal(await refusal('http://user:pass@8.8.8.8/'), 'credentials')
  t.equal(await refusal('http://user@8.8.8.8/'), 'credentials')
  t.equal(await refusal('not a url'), 'invalid_url')
})

t.test('every resolved address is checked: one private answer refuses the host', async (t) => {
  const resolve = fakeDns({
    'public.test': ['8.8.8.8', '2606:4700:4700::1111'],
    'mixed.test': ['8.8.8.8', '127.0.0.1'],
    'v6only.test': ['2606:4700:4700::1111', 'fd00:ec2::254'],
    'mapped.test': ['::ffff:192.168.0.10'],
  })
  const ok = await assertPublicUrl('https://public.test/x', { resolve })
  t.same(
    ok.addresses.map((a) => a.address),
    ['8.8.8.8', '2606:4700:4700::1111'],
  )
  t.equal(await refusal('https://mixed.test/', { resolve }), 'loopback')
  t.equal(await refusal('https://v6only.test/', { resolve }), 'metadata')
  t.equal(await refusal('https://mapped.test/', { resolve }), 'private')
  t.equal(await refusal('https://nowhere.test/', { resolve }), 'unresolvable')
  const err = await assertPublicUrl('https://mixed.test/', { resolve }).catch((e: unknown) => e)
  t.match(err, { code: 'destination_refused', address: '127.0.0.1', message: /loopback.*OZAN_ALLOW_PRIVATE_CIDRS/ })
})

t.test('the real resolver: localhost resolves to loopback and is refused', async (t) => {
  t.equal(await refusal('http://localhost:9/'), 'loopback')
  t.equal(await refusal('http://LOCALHOST:9/'), 'loopback', 'case changes nothing')
  // Some resolvers answer "localhost." with 127.0.0.1, others not at all; refused either way.
  t.match(await refusal('http://localhost./'), /^(loopback|unresolvable)$/)
})

t.test('the operator allow-list admits its ranges only', async (t) => {
  const allow = allowList(['127.0.0.0/8', 'fd00::/8'])
  const resolve = fakeDns({ 'standin.test': ['127.0.0.1'] })
  t.equal(await refusal('http://localhost:9/', { allow }), null)
  t.equal(await refusal('http://2130706433/', { allow }), null)
  t.equal(await refusal('http://[::ffff:127.0.0.1]/', { allow }), null, 'a mapped form of an allowed address')
  t.equal(await refusal('http://standin.test/', { allow, resolve }), null)
  t.equal(await refusal('http://[fd00:ec2::254]/', { allow }), null, 'the operator may allow even the metadata range')
  t.equal(await refusal('http://10.0.0.1/', { allow }), 'private', 'other ranges stay refused')
  t.equal(await refusal('http://[::1]/', { allow }), 'loopback', 'IPv4 loopback allowed does not allow ::1')
  t.equal(await refusal('http://169.254.169.254/', { allow: allowList(['169.254.0.0/16']) }), null)
  t.throws(() => allowList(['127.0.0.1']), /Not a CIDR/)
  t.throws(() => allowList(['localhost/8']), /Not a CIDR/)
})

t.test("this server's own addresses are refused (rule 4) unless allowed: its listen address, or every interface on a wildcard", async (t) => {
  const interfaces = {
    eth0: [
      { address: '93.184.216.34', family: 'IPv4' },
      { address: '2606:2800:220:1::1', family: 'IPv6' },
    ],
    lo: [{ address: '127.0.0.1', family: 'IPv4' }],
  } as unknown as Parameters<typeof ownAddresses>[1]
  const wildcard = ownAddresses('0.0.0.0', interfaces)
  t.equal(await refusal('https://93.184.216.34/', { own: wildcard }), 'self')
  t.equal(await refusal('https://[2606:2800:220:1::1]/', { own: wildcard }), 'self')
  t.equal(await refusal('https://[::ffff:93.184.216.34]/', { own: wildcard }), 'self', 'an IPv4-mapped spelling too')
  t.equal(await refusal('https://93.184.216.35/', { own: wildcard }), null, 'a neighbour is not this server')
  t.equal(await refusal('https://93.184.216.34/', { own: wildcard, allow: allowList(['93.184.216.34/32']) }), null, 'the operator may allow it')
  const specific = ownAddresses('93.184.216.34', interfaces)
  t.equal(await refusal('https://93.184.216.34/', { own: specific }), 'self')
  t.equal(await refusal('https://[2606:2800:220:1::1]/', { own: specific }), null, 'a specific listen address is the only one')
  t.equal(await refusal('https://self.example.test/', { own: specific, resolve: fakeDns({ 'self.example.test': ['93.184.216.34'] }) }), 'self', 'by name too')
  const both = ownAddresses(['127.0.0.1', '[2606:2800:220:1::1]'], interfaces)
  t.equal(await refusal('https://[2606:2800:220:1::1]/', { own: both }), 'self', "the engine's listen address as well as the API's")
  t.equal(await refusal('https://93.184.216.34/', { own: both }), null)
})

t.test('destinationRefusal finds the refusal an SDK wrapped in causes, and nothing else', async (t) => {
  const refusedErr = new DestinationRefusedError('loopback', '127.0.0.1')
  const wrapped = new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: refusedErr }) })
  t.equal(destinationRefusal(wrapped), refusedErr)
  t.equal(destinationRefusal(new Error('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) })), null)
  t.equal(destinationRefusal('not an error'), null)
})

t.test('checkHost checks a bare host as the connectors give it', async (t) => {
  t.same(await checkHost('93.184.216.34'), [{ address: '93.184.216.34', family: 4 }])
  const reasonOf = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: DestinationRefusedError) => e.reason,
    )
  t.equal(await reasonOf(checkHost('::1')), 'loopback')
  t.equal(await reasonOf(checkHost('nowhere.example.test', { resolve: fakeDns({}) })), 'unresolvable')
  t.same(await checkHost('::1', { allow: allowList(['::1/128']) }), [{ address: '::1', family: 6 }])
})
