/**
 * The parts of the cost model that are not a count times a price: X-Ray's sampling, KMS and
 * Secrets Manager requests made per container or per cache period, Lambda's billed INIT phase,
 * the alternative front doors, NAT data processing. Pure functions of counts, rates and the
 * assumptions stated with them, so that each formula is unit-tested
 * (test/unit/bench-cost-model.test.ts). USD figures are per million messages unless named
 * otherwise.
 */
import { PRICES } from './prices.ts';

/** The assumptions the per-period lines rest on; shown next to the figures. */
export interface PeriodAssumptions {
  /** Messages (recipients, or inbound items) per second, sustained. */
  readonly messagesPerSecond: number;
  /** How long a Lambda container lives before Lambda replaces it, in minutes. */
  readonly containerLifetimeMinutes: number;
}

export const SUSTAINED: PeriodAssumptions = {
  messagesPerSecond: 100,
  containerLifetimeMinutes: 15,
};

/** What one function does per message in a phase: invocations and their measured time. */
export interface FunctionLoad {
  readonly invocationsPerMessage: number;
  readonly msPerInvocation: number;
  readonly memoryMb: number;
}

const perMillion = (perMessage: number) => perMessage * 1e6;

// ---- X-Ray ----

/**
 * Lambda's sampling with `Active` tracing: a reservoir of 1 request a second, then 5% of the rest
 * (the X-Ray default rule; Lambda applies it to each function and takes no sampling rule of the
 * account's). With `PassThrough`, a function samples nothing itself (`deployed.ts`,
 * `tracesOwnInvocations`).
 */
export const XRAY_DEFAULT_RULE = { reservoirPerSecond: 1, fixedRate: 0.05 } as const;

/**
 * Traces recorded per second by one traced entry point receiving `requestsPerSecond`:
 * min(r, reservoir) + rate × max(0, r − reservoir).
 */
export const xrayTracesPerSecond = (
  requestsPerSecond: number,
  rule: { reservoirPerSecond: number; fixedRate: number } = XRAY_DEFAULT_RULE,
): number =>
  Math.min(requestsPerSecond, rule.reservoirPerSecond) +
  rule.fixedRate * Math.max(0, requestsPerSecond - rule.reservoirPerSecond);

/**
 * Traces recorded per message: every traced function's invocations make a sampling decision of
 * their own (the reservoir counted per function, the most traces it can mean), summed.
 */
export const xrayTracesPerMessage = (
  invocationsPerMessage: readonly number[],
  messagesPerSecond: number,
): number =>
  messagesPerSecond <= 0
    ? 0
    : invocationsPerMessage.reduce(
        (sum, perMessage) => sum + xrayTracesPerSecond(perMessage * messagesPerSecond),
        0,
      ) / messagesPerSecond;

// ---- containers ----

/**
 * Containers a function keeps busy (Little's law: arrival rate × time in the handler), at least
 * one while it receives anything.
 */
export const concurrentContainers = (load: FunctionLoad, messagesPerSecond: number): number => {
  const rate = load.invocationsPerMessage * messagesPerSecond;
  if (rate <= 0) return 0;
  return Math.max(1, rate * (load.msPerInvocation / 1_000));
};

/** Cold starts per message: each container started anew every `containerLifetimeMinutes`. */
export const coldStartsPerMessage = (load: FunctionLoad, assume: PeriodAssumptions): number => {
  const containers = concurrentContainers(load, assume.messagesPerSecond);
  const startsPerSecond = containers / (assume.containerLifetimeMinutes * 60);
  return assume.messagesPerSecond <= 0 ? 0 : startsPerSecond / assume.messagesPerSecond;
};

/** Lambda INIT billing: cold starts × init seconds × memory GB × the duration price. */
export const initGbSecondsPerMessage = (
  load: FunctionLoad,
  initMs: number,
  assume: PeriodAssumptions,
): number => coldStartsPerMessage(load, assume) * (initMs / 1_000) * (load.memoryMb / 1_024);

// ---- per-period requests (Secrets Manager, KMS) ----

/**
 * Requests per message of something each container makes once per `periodSeconds` while it lives
 * (a cached secret, a cached data key): containers × (1 per period, plus the one at its start).
 */
export const perContainerPeriodRequestsPerMessage = (
  load: FunctionLoad,
  periodSeconds: number,
  assume: PeriodAssumptions,
): number => {
  if (assume.messagesPerSecond <= 0) return 0;
  const containers = concurrentContainers(load, assume.messagesPerSecond);
  const lifetimeSeconds = assume.containerLifetimeMinutes * 60;
  const perContainerPerSecond = Math.ceil(lifetimeSeconds / periodSeconds) / lifetimeSeconds;
  return (containers * perContainerPerSecond) / assume.messagesPerSecond;
};

/** Requests per message of something made `requestsPerPeriod` times each `periodSeconds`. */
export const perPeriodRequestsPerMessage = (
  requestsPerPeriod: number,
  periodSeconds: number,
  messagesPerSecond: number,
): number => (messagesPerSecond <= 0 ? 0 : requestsPerPeriod / periodSeconds / messagesPerSecond);

// ---- front doors ----

export type Front = 'restApi' | 'httpApi' | 'functionUrl';

export const FRONTS: readonly Front[] = ['restApi', 'httpApi', 'functionUrl'];

/** HTTP API bills each request in 512 KB units. */
export const httpApiUnits = (requestBytes: number): number =>
  Math.max(1, Math.ceil(requestBytes / (512 * 1024)));

/**
 * USD per million messages of the webhook requests under each front door: `requests` counted in
 * the run, `httpApiUnits` their 512 KB units (`httpApiUnits` of each request's size).
 */
export const frontDoorCosts = (
  requests: number,
  httpUnits: number,
  messages: number,
): Record<Front, number> => {
  if (messages <= 0) return { restApi: 0, httpApi: 0, functionUrl: 0 };
  return {
    restApi: perMillion((requests * PRICES.apiGatewayRestRequest) / messages),
    httpApi: perMillion((httpUnits * PRICES.apiGatewayHttpRequest) / messages),
    functionUrl: perMillion((requests * PRICES.lambdaFunctionUrlRequest) / messages),
  };
};

/**
 * The total per million messages under each front door, from the total with the deployed one:
 * the deployed front's own cost (`frontCosts[deployed]`: its requests, and a REST stage's access
 * log) taken out, each front's put in.
 */
export const totalsByFront = (
  total: number,
  deployed: Front,
  frontCosts: Readonly<Record<Front, number>>,
): Record<Front, number> =>
  Object.fromEntries(
    FRONTS.map((front) => [front, total - frontCosts[deployed] + frontCosts[front]]),
  ) as Record<Front, number>;

// ---- logs, NAT ----

/**
 * Bytes CloudWatch Logs counts for `events` log events of `messageBytes` in all: the messages
 * plus 26 bytes per event (what PutLogEvents counts per event).
 */
export const logEventBytes = (messageBytes: number, events: number): number =>
  messageBytes + 26 * events;

export const GB = 1024 ** 3;

/** USD per million messages of `bytesPerMessage` at `usdPerGb`. */
export const perGbCostPerMillion = (bytesPerMessage: number, usdPerGb: number): number =>
  perMillion((bytesPerMessage / GB) * usdPerGb);

/**
 * Bytes a NAT gateway processes for an HTTPS exchange: the request and response bytes plus TCP/IP
 * headers (40 bytes per 1,460-byte segment, at least one segment each way and an ACK) and TLS
 * record framing (29 bytes per 16 KB record, at least one each way). The TLS handshake is left
 * out: the clients keep their connections alive, one handshake per container.
 */
export const natBytes = (requestBytes: number, responseBytes: number): number => {
  const direction = (bytes: number) => {
    const tls = bytes + 29 * Math.max(1, Math.ceil(bytes / 16_384));
    const segments = Math.max(1, Math.ceil(tls / 1_460));
    return tls + 40 * segments + 40;
  };
  return direction(requestBytes) + direction(responseBytes);
};
