import type { LookupAddress, LookupOptions } from 'node:dns';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  checkedLookup,
  GatewayAttachmentDownloads,
  type Resolve,
} from '../../functions/attachments/adapters/gateway-attachment-downloads.ts';
import { contentHostsFromEnvironment } from '../../functions/attachments/compose.ts';
import {
  ContentUrlPolicy,
  ContentUrlRefusedError,
  contentHostProblems,
  forbiddenAddressReason,
} from '../../functions/attachments/content-url-policy.ts';
import { AttachmentDownloadError } from '../../functions/attachments/fetch-use-case.ts';
import type { DownloadAnswer } from '../../gateway/transport.ts';

const GATEWAY = ['https://api.gw.example', 'https://send.gw.example', 'https://mnt.gw.example'];
const policy = ContentUrlPolicy.forGateway(GATEWAY, ['cdn.gw-files.example']);

const refusal = (url: string): string | undefined => {
  try {
    policy.check(url);
    return undefined;
  } catch (error) {
    if (error instanceof ContentUrlRefusedError) return error.message;
    throw error;
  }
};

describe('the content URL policy', () => {
  it.each([
    ['https://mnt.gw.example/mo/content/abc?token=x', undefined],
    ['https://API.GW.EXAMPLE/file/1', undefined],
    ['https://api.gw.example:443/file/1', undefined],
    ['https://cdn.gw-files.example/f/1', undefined],
  ])('fetches %s', (url, expected) => {
    expect(refusal(url)).toBe(expected);
  });

  it.each([
    ['http://mnt.gw.example/mo/content/abc', /^scheme http: is not https$/],
    ['ftp://mnt.gw.example/x', /^scheme ftp: is not https$/],
    ['file:///etc/passwd', /^scheme file: is not https$/],
    ['https://evil.example/x', /^host evil\.example is not one of the gateway's hosts$/],
    ['https://mnt.gw.example.evil.example/x', /not one of the gateway's hosts/],
    ['https://mnt.gw.example:8443/x', /host mnt\.gw\.example:8443 is not one/],
    ['https://gateway@127.0.0.1/x', /credentials/],
    ['https://mnt.gw.example@127.0.0.1/x', /credentials/],
    ['https://user:pw@mnt.gw.example/x', /credentials/],
    ['https://127.0.0.1/x', /host 127\.0\.0\.1 is not one/],
    // Decimal, octal and hex spellings all parse to 127.0.0.1 before any check.
    ['https://2130706433/x', /host 127\.0\.0\.1 is not one/],
    ['https://017700000001/x', /host 127\.0\.0\.1 is not one/],
    ['https://0x7f.0.0.1/x', /host 127\.0\.0\.1 is not one/],
    ['https://0x7f000001/x', /host 127\.0\.0\.1 is not one/],
    ['https://127.1/x', /host 127\.0\.0\.1 is not one/],
    ['https://%31%32%37.0.0.1/x', /host 127\.0\.0\.1 is not one/],
    ['https://localhost/x', /host localhost is not one/],
    ['https://[::1]/x', /host \[::1\] is not one/],
    ['https://[::ffff:127.0.0.1]/x', /host \[::ffff:7f00:1\] is not one/],
    ['https://169.254.169.254/latest/meta-data/', /not one of the gateway's hosts/],
    ['not a url', /^not an absolute URL$/],
    ['/relative/path', /^not an absolute URL$/],
  ])('refuses %s', (url, expected) => {
    expect(refusal(url)).toMatch(expected);
  });

  it('refuses a gateway host that is an IP literal of a private network', () => {
    // Prepare: a (mis)configured gateway on a private address.
    const onPrivate = ContentUrlPolicy.forGateway(['https://10.1.2.3', 'https://[fd00::1]']);

    // Act / Assess
    expect(() => onPrivate.check('https://10.1.2.3/f')).toThrow(
      'host 10.1.2.3 is a private address',
    );
    expect(() => onPrivate.check('https://[fd00::1]/f')).toThrow(
      'host [fd00::1] is a unique-local address',
    );
  });

  it('allows the local simulator origin over http, and nothing else on loopback', () => {
    // Prepare
    const local = ContentUrlPolicy.forGateway(['http://127.0.0.1:4010'], [], {
      localSimulatorOrigin: 'http://127.0.0.1:4010',
    });

    // Act / Assess
    expect(local.check('http://127.0.0.1:4010/_sim/content/t').host).toBe('127.0.0.1:4010');
    expect(() => local.check('http://127.0.0.1:4011/x')).toThrow('scheme http: is not https');
    expect(() => local.check('http://localhost:4010/x')).toThrow('scheme http: is not https');
    expect(() => local.check('https://127.0.0.1:4010/x')).toThrow('is a loopback address');
  });

  it('takes only a loopback http origin as the local simulator origin, and never inside Lambda', () => {
    const make = (origin: string) => () =>
      new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: origin });
    expect(make('http://[::1]:4010')).not.toThrow();
    for (const origin of [
      'https://127.0.0.1:4010',
      'http://10.0.0.1:4010',
      'http://localhost:4010',
      'http://127.0.0.1:4010/path',
      'http://example.com',
    ])
      expect(make(origin), origin).toThrow('localSimulatorOrigin must be a loopback http origin');

    process.env.AWS_LAMBDA_FUNCTION_NAME = 'fetch-attachments';
    try {
      expect(make('http://127.0.0.1:4010')).toThrow('not inside Lambda');
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });

  it('validates extra content hosts', () => {
    expect(contentHostProblems(['cdn.gw-files.example', 'files.example:8443'])).toEqual([]);
    expect(contentHostProblems(['https://x.example', 'a.example/path', '10.0.0.1', 7])).toEqual([
      '"https://x.example": give only a host name, optionally with :port',
      '"a.example/path": give only a host name, optionally with :port',
      '"10.0.0.1" is an IP address; give the host\'s DNS name',
      '7 is not a host name',
    ]);
  });
});

describe('ATTACHMENT_CONTENT_HOSTS', () => {
  const withHosts = (value: string | undefined) => {
    const before = process.env.ATTACHMENT_CONTENT_HOSTS;
    if (value === undefined) delete process.env.ATTACHMENT_CONTENT_HOSTS;
    else process.env.ATTACHMENT_CONTENT_HOSTS = value;
    try {
      return contentHostsFromEnvironment();
    } finally {
      if (before === undefined) delete process.env.ATTACHMENT_CONTENT_HOSTS;
      else process.env.ATTACHMENT_CONTENT_HOSTS = before;
    }
  };

  it('reads a comma-separated list, none when unset or empty', () => {
    expect(withHosts(undefined)).toEqual([]);
    expect(withHosts('')).toEqual([]);
    expect(withHosts(' cdn.gw-files.example , files.example:8443 ')).toEqual([
      'cdn.gw-files.example',
      'files.example:8443',
    ]);
  });

  it('stops the function at cold start on a host that is not a DNS name', () => {
    expect(() => withHosts('cdn.gw-files.example,169.254.169.254')).toThrow(
      'environment variable ATTACHMENT_CONTENT_HOSTS: "169.254.169.254" is an IP address',
    );
    expect(() => withHosts('https://cdn.gw-files.example/')).toThrow(
      'give only a host name, optionally with :port',
    );
  });
});

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['100.127.255.255', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['fc00::1', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['not-an-address', 'unparseable'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '203.0.113.10',
    '2600:1f18::1',
    '::ffff:8.8.8.8',
    '2002:0808:0808::1',
    'fe7f:ffff::1',
  ])('allows %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });
});

/** Calls a lookup function the way `net.connect` does, as a promise. */
const lookUp = (
  resolve: Resolve,
  hostname: string,
  options: LookupOptions,
): Promise<LookupAddress[] | { address: string; family: number }> =>
  new Promise((done, fail) => {
    checkedLookup(resolve)(hostname, options, ((
      error: Error | null,
      address: string | LookupAddress[],
      family?: number,
    ) => {
      if (error) fail(error);
      else done(Array.isArray(address) ? address : { address, family: family ?? 0 });
    }) as never);
  });

describe('checkedLookup (the address check at connect time)', () => {
  const dns =
    (answers: Record<string, LookupAddress[]>): Resolve =>
    async (hostname) =>
      answers[hostname] ?? [];

  it('hands the socket the addresses it checked', async () => {
    const resolve = dns({ 'mnt.gw.example': [{ address: '203.0.113.7', family: 4 }] });
    await expect(lookUp(resolve, 'mnt.gw.example', { all: true })).resolves.toEqual([
      { address: '203.0.113.7', family: 4 },
    ]);
    await expect(lookUp(resolve, 'mnt.gw.example', {})).resolves.toEqual({
      address: '203.0.113.7',
      family: 4,
    });
  });

  it.each([
    ['10.0.0.5', 4, 'private'],
    ['127.0.0.1', 4, 'loopback'],
    ['169.254.169.254', 4, 'link-local'],
    ['::ffff:127.0.0.1', 6, 'loopback'],
    ['fd12::1', 6, 'unique-local'],
  ])('refuses a DNS name that resolves to %s', async (address, family, reason) => {
    const resolve = dns({ 'mnt.gw.example': [{ address, family }] });
    await expect(lookUp(resolve, 'mnt.gw.example', { all: true })).rejects.toThrow(
      new ContentUrlRefusedError(`host mnt.gw.example resolves to ${address}, a ${reason} address`),
    );
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const resolve = dns({
      'mnt.gw.example': [
        { address: '203.0.113.7', family: 4 },
        { address: '192.168.0.10', family: 4 },
      ],
    });
    await expect(lookUp(resolve, 'mnt.gw.example', { all: true })).rejects.toBeInstanceOf(
      ContentUrlRefusedError,
    );
  });
});

describe('GatewayAttachmentDownloads and redirects', () => {
  const answer = (status: number, headers: Record<string, string>, body = ''): DownloadAnswer => ({
    status,
    headers,
    stream: Readable.from([Buffer.from(body)]),
  });

  const downloadsWith = (answers: Record<string, DownloadAnswer>) => {
    const requested: string[] = [];
    const downloads = new GatewayAttachmentDownloads(
      { downloadMoFile: () => Promise.reject(new Error('not used')) },
      {
        timeoutMs: 1_000,
        contentUrls: policy,
        fetchUrl: async (url) => {
          requested.push(url);
          const found = answers[url];
          if (!found) throw new Error(`unexpected request to ${url}`);
          return found;
        },
      },
    );
    return { downloads, requested };
  };

  const refusedWith = async (download: Promise<unknown>): Promise<string> => {
    try {
      await download;
    } catch (error) {
      if (error instanceof AttachmentDownloadError) return error.message;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('follows a redirect to another allowed host, checking the hop', async () => {
    const { downloads, requested } = downloadsWith({
      'https://mnt.gw.example/c/1': answer(302, { location: 'https://cdn.gw-files.example/f/1' }),
      'https://cdn.gw-files.example/f/1': answer(200, { 'content-type': 'image/gif' }, 'GIF'),
    });
    const download = await downloads.fromContentUrl('https://mnt.gw.example/c/1');
    expect(Buffer.concat(await download.body.toArray()).toString()).toBe('GIF');
    expect(requested).toEqual(['https://mnt.gw.example/c/1', 'https://cdn.gw-files.example/f/1']);
  });

  it.each([
    ['http://127.0.0.1/admin', /^refused redirect 1: scheme http: is not https$/],
    ['https://169.254.169.254/latest/meta-data/', /^refused redirect 1: host 169\.254/],
    ['https://evil.example/x', /^refused redirect 1: host evil\.example is not one/],
    ['http://mnt.gw.example/downgrade', /^refused redirect 1: scheme http:/],
  ])('never goes to a redirect target %s', async (location, reason) => {
    const { downloads, requested } = downloadsWith({
      'https://mnt.gw.example/c/2': answer(301, { location }),
    });
    expect(await refusedWith(downloads.fromContentUrl('https://mnt.gw.example/c/2'))).toMatch(
      reason,
    );
    expect(requested).toEqual(['https://mnt.gw.example/c/2']);
  });

  it('gives up after three redirects', async () => {
    const { downloads, requested } = downloadsWith(
      Object.fromEntries(
        [0, 1, 2, 3].map((n) => [
          `https://mnt.gw.example/r/${n}`,
          answer(307, { location: `/r/${n + 1}` }),
        ]),
      ),
    );
    expect(await refusedWith(downloads.fromContentUrl('https://mnt.gw.example/r/0'))).toBe(
      'more than 3 redirects',
    );
    expect(requested).toHaveLength(4);
  });

  it('never requests a refused content URL, and marks the failure as a refusal', async () => {
    const { downloads, requested } = downloadsWith({
      'https://mnt.gw.example/gone': answer(410, { 'content-type': 'application/json' }, '{}'),
    });
    const refused = await downloads.fromContentUrl('https://gateway@127.0.0.1/x').catch((e) => e);
    const gone = await downloads.fromContentUrl('https://mnt.gw.example/gone').catch((e) => e);
    expect(refused).toMatchObject({
      message: 'refused contentUrl: the URL carries credentials (user info)',
      refused: true,
    });
    expect(gone).toMatchObject({ message: 'HTTP 410: {}', refused: false });
    expect(requested).toEqual(['https://mnt.gw.example/gone']);
  });
});
