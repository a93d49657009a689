import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { type Environment, listEnv, optionalEnv } from '../commons/environment.ts';

/** True when the caller's source address may call the webhooks. */
export type SourceAllowlist = (sourceIp: string | undefined) => boolean;

/** Every source is allowed: no allowlist configured (the path secret alone authenticates). */
export const ANY_SOURCE: SourceAllowlist = () => true;

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * An allowlist of IPv4 and IPv6 CIDR blocks (`203.0.113.0/24`, `2001:db8::/32`). A missing,
 * empty or malformed source address is refused, and an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.7`) is checked as the IPv4 address it carries.
 * @throws Error naming every block that is not a CIDR block, or when `cidrs` is empty
 */
export const cidrAllowlist = (cidrs: readonly string[]): SourceAllowlist => {
  if (cidrs.length === 0) throw new Error('the source allowlist has no CIDR block');
  const list = new BlockList();
  const malformed: string[] = [];
  for (const cidr of cidrs) {
    const [address = '', prefix = '', ...rest] = cidr.split('/');
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (rest.length === 0 && isIPv4(address) && bits <= 32) list.addSubnet(address, bits, 'ipv4');
    else if (rest.length === 0 && isIPv6(address) && bits <= 128)
      list.addSubnet(address, bits, 'ipv6');
    else malformed.push(cidr);
  }
  if (malformed.length > 0)
    throw new Error(`not IPv4 or IPv6 CIDR blocks: ${malformed.map((c) => `"${c}"`).join(', ')}`);
  return (sourceIp) => {
    if (typeof sourceIp !== 'string') return false;
    const address = IPV4_MAPPED.exec(sourceIp)?.[1] ?? sourceIp;
    if (isIPv4(address)) return list.check(address, 'ipv4');
    if (isIPv6(address)) return list.check(address, 'ipv6');
    return false;
  };
};

/** `ALLOWED_SOURCE_CIDRS` of a deployment that lets every source call (the path secret decides). */
export const ANY_SOURCE_SETTING = '*';

/**
 * The allowlist from `ALLOWED_SOURCE_CIDRS` (comma-separated CIDR blocks, or `*` for every
 * source, as the stack writes when none is configured), read once at cold start: unset or blank
 * allows every source too; set, it must hold at least one block and only well-formed ones, or the
 * function fails to start instead of letting every source in.
 */
export const sourceAllowlistFromEnvironment = (env: Environment = process.env): SourceAllowlist => {
  const setting = optionalEnv('ALLOWED_SOURCE_CIDRS', env);
  if (setting === undefined || setting.trim() === ANY_SOURCE_SETTING) return ANY_SOURCE;
  try {
    return cidrAllowlist(listEnv('ALLOWED_SOURCE_CIDRS', env));
  } catch (error) {
    throw new Error(
      `environment variable ALLOWED_SOURCE_CIDRS: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
};
