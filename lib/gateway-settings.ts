import { Token } from 'aws-cdk-lib';
import { integerProblem } from './props-validation.ts';

/**
 * Base URLs of the customer's gateway environment (spec 01 §1 "Hosts"). Each customer gets its
 * own addresses with its contract, so there is no default.
 */
export interface GatewayHostsProps {
  /** Authentication, `/msg/...` sending, reports, MO, opt-out and tracking URLs. */
  readonly api: string;
  /** `/xms/...`, `/rcs/...` and `/msgr/...` sending. */
  readonly send: string;
  /** Opt-out queries and the management operations. */
  readonly mnt: string;
}

/** Where the customer's gateway is and what it allows; all of it comes from the gateway contract. */
export interface GatewaySettingsProps {
  /** The gateway's https base URLs. */
  readonly hosts: GatewayHostsProps;
  /**
   * Recipients per second the gateway accepts from this customer (the contract's TPS quota). The
   * senders share one token bucket, so this is never exceeded across concurrent invocations.
   */
  readonly tpsQuota: number;
  /**
   * Time one gateway call may take before it is abandoned and retried later.
   * @default 10000
   */
  readonly timeoutMs?: number;
}

/** The default of `GatewaySettingsProps.timeoutMs`, also the functions' own default. */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 10_000;

const HOST_NAMES = ['api', 'send', 'mnt'] as const;

/** The problem with one host, if any: an absolute https URL without credentials, query or fragment. */
const hostProblems = (name: string, value: unknown): string[] => {
  if (typeof value === 'string' && Token.isUnresolved(value)) return [];
  const shown = JSON.stringify(value) ?? String(value);
  if (typeof value !== 'string' || !URL.canParse(value))
    return [`gateway.hosts.${name} must be an https URL, got ${shown}`];
  const url = new URL(value);
  if (url.protocol !== 'https:')
    return [`gateway.hosts.${name} must be an https URL, got ${shown}`];
  if (url.username || url.password || url.search || url.hash)
    return [
      `gateway.hosts.${name} must not contain credentials, a query or a fragment, got ${shown}`,
    ];
  return [];
};

/**
 * The problems with the `gateway` prop, each named by its path, so that a caller can report every
 * problem at once. Also catches what a JavaScript caller or CDK context can leave out.
 */
export const gatewaySettingsProblems = (settings: GatewaySettingsProps | undefined): string[] => {
  if (settings === undefined)
    return [
      'gateway is required: { hosts: { api, send, mnt }, tpsQuota } from the gateway contract',
    ];
  const hosts: Partial<GatewayHostsProps> | undefined = settings.hosts;
  return [
    ...(hosts === undefined
      ? ['gateway.hosts is required: { api, send, mnt } https URLs from the gateway contract']
      : HOST_NAMES.flatMap((name) => hostProblems(name, hosts[name]))),
    ...(settings.tpsQuota === undefined
      ? ['gateway.tpsQuota is required: recipients per second from the gateway contract']
      : // At least one whole 10-recipient request per second (send-messages refuses less).
        integerProblem('gateway.tpsQuota', settings.tpsQuota, { min: 10, max: 100_000 })),
    // The functions' own range for GATEWAY_TIMEOUT_MS.
    ...integerProblem('gateway.timeoutMs', settings.timeoutMs, { min: 100, max: 60_000 }),
  ];
};

/**
 * Hosts on the reserved `.invalid` top-level domain (RFC 2606): the placeholders of the example
 * configuration, which can never resolve.
 */
export const placeholderHosts = (settings: GatewaySettingsProps): string[] =>
  HOST_NAMES.map((name) => settings.hosts[name]).filter((value) => {
    if (Token.isUnresolved(value) || !URL.canParse(value)) return false;
    return /\.invalid\.?$/i.test(new URL(value).hostname);
  });

/** The environment variables by which the functions find the gateway. */
export const gatewayEnvironment = (settings: GatewaySettingsProps): Record<string, string> => ({
  GATEWAY_API_URL: settings.hosts.api,
  GATEWAY_SEND_URL: settings.hosts.send,
  GATEWAY_MNT_URL: settings.hosts.mnt,
  GATEWAY_TIMEOUT_MS: String(settings.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS),
});
