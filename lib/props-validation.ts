import { isIPv4, isIPv6 } from 'node:net';
import { Token } from 'aws-cdk-lib';

/** A construct's props are inconsistent; the message lists every problem found, not just the first. */
export class InvalidPropsError extends Error {
  override readonly name = 'InvalidPropsError';

  constructor(
    readonly construct: string,
    readonly problems: readonly string[],
  ) {
    super(`${construct}: invalid props:\n  - ${problems.join('\n  - ')}`);
  }
}

/** Throws one `InvalidPropsError` naming every problem, or does nothing when there are none. */
export const throwIfInvalid = (construct: string, problems: readonly string[]): void => {
  if (problems.length > 0) throw new InvalidPropsError(construct, problems);
};

/**
 * The problem with an optional integer prop, if any. Unresolved tokens (parameters, imports) are
 * accepted as they are: only the deployment can know their value.
 */
export const integerProblem = (
  name: string,
  value: number | undefined,
  range: { readonly min: number; readonly max: number },
): string[] => {
  if (value === undefined || Token.isUnresolved(value)) return [];
  return Number.isInteger(value) && value >= range.min && value <= range.max
    ? []
    : [`${name} must be an integer from ${range.min} to ${range.max}, got ${value}`];
};

/** True for an IPv4 or IPv6 CIDR block such as `203.0.113.0/24` or `2001:db8::/32`. */
export const isCidr = (value: string): boolean => {
  const [address, prefix, ...rest] = value.split('/');
  if (address === undefined || prefix === undefined || rest.length > 0) return false;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (isIPv4(address)) return bits <= 32;
  if (isIPv6(address)) return bits <= 128;
  return false;
};
