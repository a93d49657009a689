import { isIP, isIPv4 } from 'node:net';

/**
 * Which content URLs msgbridge may fetch. A `contentUrl` arrives in a webhook body that carries
 * no signature (field notes, "Webhooks"), so whoever can post to the webhook chooses it: fetching
 * it blindly lets them make the function read the metadata service, the VPC or loopback and have
 * the answer stored and published as an attachment (server-side request forgery). So a content
 * URL is fetched only when it is https, names one of the gateway's own hosts (or an explicitly
 * allowed extra one), carries no credentials, and — checked again at connect time, after DNS, on
 * the address actually used — does not lead to an address that is not globally reachable.
 */

/** Why a content URL (or one of its redirects, or the address its host resolves to) was refused. */
export class ContentUrlRefusedError extends Error {
  override readonly name = 'ContentUrlRefusedError';
}

export interface ContentUrlPolicyOptions {
  /**
   * Hosts a content URL may name, as `host` or `host:port` (the URL's `host`, default port left
   * out): the gateway's own hosts, and any extra content host the operator allowed.
   */
  readonly hosts: readonly string[];
  /**
   * For the local run and the tests only: one loopback **http** origin (the gateway simulator's,
   * `http://127.0.0.1:<port>` or `http://[::1]:<port>`) whose URLs are allowed although they are
   * neither https nor on a public address. Nothing else is exempt. Refused inside Lambda
   * (`AWS_LAMBDA_FUNCTION_NAME` set), and never read from the environment.
   */
  readonly localSimulatorOrigin?: string;
}

/** The URL policy for content URLs; addresses are checked by {@link forbiddenAddressReason}. */
export class ContentUrlPolicy {
  private readonly hosts: ReadonlySet<string>;
  private readonly localOrigin: string | undefined;

  constructor(options: ContentUrlPolicyOptions) {
    this.hosts = new Set(options.hosts.map((host) => normalizeHost(host)));
    this.localOrigin =
      options.localSimulatorOrigin === undefined
        ? undefined
        : localOrigin(options.localSimulatorOrigin);
  }

  /**
   * The gateway's hosts from its base URLs (`GATEWAY_API_URL`, `…_SEND_URL`, `…_MNT_URL`), plus
   * the extra content hosts. The base URLs' scheme does not matter here: content URLs must be
   * https whatever the gateway's base URLs say (the deployed ones are https; see
   * `gatewaySettingsProblems`).
   */
  static forGateway(
    baseUrls: readonly string[],
    extraHosts: readonly string[] = [],
    options: Pick<ContentUrlPolicyOptions, 'localSimulatorOrigin'> = {},
  ): ContentUrlPolicy {
    return new ContentUrlPolicy({
      hosts: [...baseUrls.map((url) => new URL(url).host), ...extraHosts],
      ...options,
    });
  }

  /**
   * The URL to fetch, parsed, or a {@link ContentUrlRefusedError} naming the reason. The reason
   * names the origin at most, never the path or query: a content URL is a bearer link.
   */
  check(url: string | URL): URL {
    let parsed: URL;
    try {
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      throw new ContentUrlRefusedError('not an absolute URL');
    }
    if (parsed.username !== '' || parsed.password !== '')
      throw new ContentUrlRefusedError('the URL carries credentials (user info)');
    if (this.localOrigin !== undefined && parsed.origin === this.localOrigin) return parsed;
    if (parsed.protocol !== 'https:')
      throw new ContentUrlRefusedError(`scheme ${parsed.protocol} is not https`);
    if (!this.hosts.has(parsed.host))
      throw new ContentUrlRefusedError(`host ${parsed.host} is not one of the gateway's hosts`);
    // An IP literal is connected to without a DNS look-up, so its address is checked here.
    const literal = ipLiteral(parsed.hostname);
    if (literal !== undefined) {
      const reason = forbiddenAddressReason(literal);
      if (reason) throw new ContentUrlRefusedError(`host ${parsed.host} is a ${reason} address`);
    }
    return parsed;
  }
}

/** The problems with a list of extra content hosts (`host` or `host:port`, DNS names only). */
export const contentHostProblems = (hosts: readonly unknown[]): string[] =>
  hosts.flatMap((host) => {
    const shown = JSON.stringify(host) ?? String(host);
    if (typeof host !== 'string') return [`${shown} is not a host name`];
    try {
      const normal = normalizeHost(host);
      return ipLiteral(new URL(`https://${normal}`).hostname) === undefined
        ? []
        : [`${shown} is an IP address; give the host's DNS name`];
    } catch (error) {
      return [`${shown}: ${(error as Error).message}`];
    }
  });

/** `host` or `host:port` exactly as a URL's `host` reads (lower case, default port left out). */
const normalizeHost = (host: string): string => {
  const trimmed = host.trim();
  if (!URL.canParse(`https://${trimmed}/`))
    throw new ContentUrlRefusedError('not a host name or host:port');
  const url = new URL(`https://${trimmed}/`);
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash)
    throw new ContentUrlRefusedError('give only a host name, optionally with :port');
  if (url.host !== trimmed.toLowerCase() && `${url.host}:443` !== trimmed.toLowerCase())
    throw new ContentUrlRefusedError('give only a host name, optionally with :port');
  return url.host;
};

const localOrigin = (origin: string): string => {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined)
    throw new Error('localSimulatorOrigin is for the local run and tests only, not inside Lambda');
  const url = URL.canParse(origin) ? new URL(origin) : undefined;
  const literal = url ? ipLiteral(url.hostname) : undefined;
  if (
    url === undefined ||
    url.protocol !== 'http:' ||
    url.origin !== origin.replace(/\/$/, '') ||
    literal === undefined ||
    forbiddenAddressReason(literal) !== 'loopback'
  )
    throw new Error(
      `localSimulatorOrigin must be a loopback http origin such as http://127.0.0.1:4010, got ${JSON.stringify(origin)}`,
    );
  return url.origin;
};

/** The address of an IP-literal host name (`127.0.0.1`, `[::1]`), or undefined for a DNS name. */
const ipLiteral = (hostname: string): string | undefined => {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
};

// --- Addresses ----------------------------------------------------------------------------------

type Range = readonly [prefix: bigint, bits: number, reason: string];

const v4 = (text: string): bigint =>
  text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);

// IANA special-purpose IPv4 blocks that are not globally reachable (RFC 6890 and successors).
const IPV4_RANGES: readonly Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified ("this network")'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'shared (carrier-grade NAT)'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'IETF protocol assignment'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'benchmarking'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved or broadcast'],
];

const IPV6_RANGES: readonly Range[] = [
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  // IPv4-compatible (deprecated): nothing legitimate uses it; it would carry an IPv4 address.
  [0n, 96, 'IPv4-compatible (deprecated)'],
  [0x0064_ff9b_0001n << 80n, 48, 'local-use NAT64'],
  [0x0100n << 112n, 64, 'discard-only'],
  [0x2001_0000n << 96n, 32, 'Teredo'],
  [0xfc00n << 112n, 7, 'unique-local'],
  [0xfe80n << 112n, 10, 'link-local'],
  [0xfec0n << 112n, 10, 'site-local (deprecated)'],
  [0xff00n << 112n, 8, 'multicast'],
];

const inRange = (value: bigint, width: number, [prefix, bits]: Range): boolean =>
  value >> BigInt(width - bits) === prefix >> BigInt(width - bits);

/**
 * Why `address` (an IPv4 or IPv6 address as DNS or a URL gives it) must not be connected to —
 * private, loopback, link-local, unique-local, multicast, unspecified and the like — or
 * `undefined` for a globally reachable address. An IPv6 address that embeds an IPv4 one
 * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) is judged by the IPv4 address it leads to. Anything that does not parse as an address is refused too.
 */
export const forbiddenAddressReason = (address: string): string | undefined => {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return ipv4Reason(v4(bare));
  const value = parseIpv6(bare);
  if (value === undefined) return 'unparseable';
  const embedded = embeddedIpv4(value);
  if (embedded !== undefined) return ipv4Reason(embedded);
  return IPV6_RANGES.find((range) => inRange(value, 128, range))?.[2];
};

const ipv4Reason = (value: bigint): string | undefined =>
  IPV4_RANGES.find((range) => inRange(value, 32, range))?.[2];

const embeddedIpv4 = (value: bigint): bigint | undefined => {
  if (value >> 32n === 0xffffn) return value & 0xffff_ffffn; // ::ffff:0:0/96, IPv4-mapped
  if (value >> 32n === 0xffff_0000n) return value & 0xffff_ffffn; // ::ffff:0:0:0/96, translated
  if (value >> 32n === 0x0064_ff9b_0000_0000_0000_0000n) return value & 0xffff_ffffn; // NAT64
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffff_ffffn; // 6to4
  return undefined;
};

/** An IPv6 address (with `::` and an optional dotted IPv4 tail) as a 128-bit number. */
const parseIpv6 = (text: string): bigint | undefined => {
  if (isIP(text) !== 6) return undefined;
  let groups = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (dotted?.[1]) {
    const tail = v4(dotted[1]);
    groups = `${groups.slice(0, dotted.index)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  const all = [...left, ...Array<string>(missing).fill('0'), ...right];
  return all.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
};
