/**
 * The end-to-end scenario's cost lines beyond the counted calls: CloudWatch Logs ingestion (the
 * bytes measured by `log-meter.ts` plus the modelled platform, EMF and access-log lines), X-Ray
 * traces, KMS and Secrets Manager requests, Lambda's billed INIT phase, and, apart from the
 * totals, the NAT gateway's data processing and the front-door comparison. What each rests on is
 * in the line's `basis` and in docs/performance.md.
 */

import { sumWhere } from './call-counter.ts';
import {
  coldStartsPerMessage,
  type Front,
  type FunctionLoad,
  frontDoorCosts,
  GB,
  initGbSecondsPerMessage,
  logEventBytes,
  type PeriodAssumptions,
  perContainerPeriodRequestsPerMessage,
  perGbCostPerMillion,
  perPeriodRequestsPerMessage,
  SUSTAINED,
  xrayTracesPerMessage,
} from './cost-model.ts';
import {
  APPLICATION_LOG_LEVELS,
  type DeployedFunction,
  type Deployment,
  lets,
  tracesOwnInvocations,
} from './deployed.ts';
import { isKey, type PhaseFigures, type PricedLine } from './end-to-end-figures.ts';
import { accessLogLineBytes, emfLineBytes, platformLines } from './log-meter.ts';
import { LAMBDA_MEMORY_MB, PRICES } from './prices.ts';
import { REGIONAL_PRICES, type Region } from './regional-cost.ts';
import { round } from './report.ts';
import { natTraffic, type TrafficSnapshot } from './traffic.ts';

type LambdaName = keyof typeof LAMBDA_MEMORY_MB;

export type CostLine = PricedLine;

const line = (
  name: string,
  price: string,
  unitPrice: number,
  unitsPerMessage: number,
  messages: number,
  basis: string,
): CostLine => ({
  line: name,
  price,
  unitPrice,
  units: unitsPerMessage * messages,
  unitsPerMessage,
  usdPerMillion: unitsPerMessage * unitPrice * 1e6,
  basis,
});

/** Seconds between the cached requests the stack's configuration leaves at their defaults. */
export const PERIODS = {
  /** SQS `KmsDataKeyReusePeriodSeconds`: the stack sets none (`lib/send-pipeline.ts`): 300 s. */
  sqsDataKeyReuse: 300,
  /** DynamoDB's cached table key per caller, and the assumed S3 bucket-key and bus reuse. */
  kmsCache: 300,
  /** Powertools `getSecret` maxAge in `functions/webhooks/webhook-secret.ts`, gateway-credentials.ts. */
  secretCache: 300,
  /** reconcile-status runs every 15 minutes (`lib/scheduled-jobs.ts`). */
  reconcileRun: 900,
} as const;

/**
 * Who holds a cached KMS key per phase (roles × tables, per `lib/` grants): each asks KMS once
 * per period. Outbound: send-messages (event, state), receive-reports (event), publish-events
 * (event stream, state), reconcile-status (event, state), refresh-token (state); the send queue's
 * producer and consumer; the bus. Inbound: receive-inbound (event), publish-events (event stream,
 * state), fetch-attachments (event, state), sweep-attachments (event); the attachment bucket's
 * bucket key; the bus.
 */
const KMS_HOLDERS = {
  outbound: { tablePrincipals: 8, queuePrincipals: 2, bucketKeys: 0, bus: 2 },
  inbound: { tablePrincipals: 6, queuePrincipals: 0, bucketKeys: 1, bus: 2 },
} as const;

/** Functions that read a Secrets Manager secret per container per cache period. */
const SECRET_READERS: Record<'outbound' | 'inbound', readonly LambdaName[]> = {
  outbound: ['receive-reports'],
  inbound: ['receive-inbound'],
};

/** Metrics the entries' `logMetrics` flushes per invocation (a representative two). */
const EMF_METRICS = ['Processed', 'Failed'] as const;

/** How `name` is deployed; a function the stack does not deploy is a mistake in the benchmark. */
export const deploymentFunction = (deployment: Deployment, name: string): DeployedFunction => {
  const deployed = deployment.functions[name];
  if (!deployed) throw new Error(`the deployed stack has no function ${name}`);
  return deployed;
};

export const loadsOf = (phase: PhaseFigures): Record<LambdaName, FunctionLoad> =>
  Object.fromEntries(
    (Object.keys(phase.lambda) as LambdaName[]).map((name) => {
      const { invocations, ms } = phase.lambda[name];
      return [
        name,
        {
          invocationsPerMessage: phase.messages > 0 ? invocations / phase.messages : 0,
          msPerInvocation: invocations > 0 ? ms / invocations : 0,
          memoryMb: LAMBDA_MEMORY_MB[name],
        },
      ];
    }),
  ) as Record<LambdaName, FunctionLoad>;

export interface LogBreakdown {
  readonly applicationBytes: number;
  readonly applicationLines: number;
  readonly platformBytes: number;
  readonly emfBytes: number;
  readonly coldStartBytes: number;
  /** The access-log lines of the deployed front: a REST API stage's; function URLs write none. */
  readonly accessLogBytes: number;
  readonly events: number;
  /** All of it as CloudWatch Logs counts it (`logEventBytes`), per message. */
  readonly billedBytesPerMessage: number;
  /**
   * What a REST API stage's access log would add, as CloudWatch Logs counts it, per message,
   * whatever the deployed front: the REST API's side of the front-door comparison.
   */
  readonly restApiAccessLogBilledBytes: number;
}

/**
 * Log bytes of a phase, measured and modelled, per message, as `deployment` writes them: each
 * function's platform lines at its system log level, its EMF lines while its application log level
 * lets INFO through (an EMF line carries no level, and Lambda files such a line under INFO), the
 * access log of a REST API front.
 */
export const logBreakdown = (
  phase: PhaseFigures,
  deployment: Deployment,
  assume: PeriodAssumptions = SUSTAINED,
): LogBreakdown => {
  const loads = loadsOf(phase);
  const names = Object.keys(loads) as LambdaName[];
  const emf = emfLineBytes('msgbridge', EMF_METRICS);
  const coldEmf = emfLineBytes('msgbridge', ['ColdStart']);
  let invocationLines = 0;
  let platformBytes = 0;
  let emfBytes = 0;
  let coldStartLines = 0;
  let coldStartBytes = 0;
  for (const name of names) {
    const { invocations } = phase.lambda[name];
    const coldStarts = coldStartsPerMessage(loads[name], assume) * phase.messages;
    const configured = deploymentFunction(deployment, name);
    const platform = platformLines(configured.systemLogLevel);
    const metricsWritten = lets(APPLICATION_LOG_LEVELS, configured.applicationLogLevel, 'INFO');
    platformBytes += invocations * platform.perInvocation;
    invocationLines += invocations * platform.linesPerInvocation;
    coldStartBytes += coldStarts * (platform.perColdStart + (metricsWritten ? coldEmf : 0));
    coldStartLines += coldStarts * (platform.linesPerColdStart + (metricsWritten ? 1 : 0));
    if (metricsWritten) {
      emfBytes += invocations * emf;
      invocationLines += invocations;
    }
  }
  let accessLogBytes = 0;
  let requests = 0;
  for (const [key, tally] of Object.entries(phase.calls)) {
    if (!key.startsWith('webhooks POST')) continue;
    requests += tally.calls;
    accessLogBytes +=
      tally.calls *
      accessLogLineBytes({
        resourcePath: key.replace(/^webhooks POST /, ''),
        userAgent: 'undici',
        status: 200,
        responseLength: 16,
        latencyMs: tally.calls > 0 ? tally.ms / tally.calls : 0,
      });
  }
  const applicationLines = Object.values(phase.logs).reduce((sum, l) => sum + l.lines, 0);
  const applicationBytes = Object.values(phase.logs).reduce((sum, l) => sum + l.bytes, 0);
  // Only a REST API stage writes access logs.
  const accessLog =
    deployment.front === 'rest-api'
      ? { bytes: accessLogBytes, events: requests }
      : { bytes: 0, events: 0 };
  const events = applicationLines + invocationLines + coldStartLines + accessLog.events;
  const all = applicationBytes + platformBytes + emfBytes + coldStartBytes + accessLog.bytes;
  const per = (n: number) => (phase.messages > 0 ? n / phase.messages : 0);
  return {
    applicationBytes: per(applicationBytes),
    applicationLines: per(applicationLines),
    platformBytes: per(platformBytes),
    emfBytes: per(emfBytes),
    coldStartBytes: per(coldStartBytes),
    accessLogBytes: per(accessLog.bytes),
    events: per(events),
    billedBytesPerMessage: per(logEventBytes(all, events)),
    restApiAccessLogBilledBytes: per(logEventBytes(accessLogBytes, requests)),
  };
};

/**
 * The modelled lines of a phase, in the totals. `importMs`: the cold-start scenario's measured
 * import time per function (absent: the INIT line is left at 0 and says so).
 */
export const modelledLines = (
  phase: PhaseFigures,
  which: 'outbound' | 'inbound',
  importMs: Readonly<Record<string, number>> | undefined,
  deployment: Deployment,
  assume: PeriodAssumptions = SUSTAINED,
): CostLine[] => {
  const { messages } = phase;
  const loads = loadsOf(phase);
  const names = (Object.keys(loads) as LambdaName[]).filter(
    (name) => loads[name].invocationsPerMessage > 0,
  );
  const rate = assume.messagesPerSecond;
  const logs = logBreakdown(phase, deployment, assume);
  const traced = names.filter((name) => tracesOwnInvocations(deployment, name));
  const traces = xrayTracesPerMessage(
    traced.map((name) => loads[name].invocationsPerMessage),
    rate,
  );
  const secrets = SECRET_READERS[which].reduce(
    (sum, name) =>
      sum + perContainerPeriodRequestsPerMessage(loads[name], PERIODS.secretCache, assume),
    0,
  );
  const holders = KMS_HOLDERS[which];
  const kmsPeriodic = perPeriodRequestsPerMessage(
    holders.tablePrincipals + holders.queuePrincipals + holders.bucketKeys + holders.bus,
    PERIODS.kmsCache,
    rate,
  );
  const initGbs = names.reduce((sum, name) => {
    const ms = importMs?.[name];
    return ms === undefined ? sum : sum + initGbSecondsPerMessage(loads[name], ms, assume);
  }, 0);
  const missingInit = names.filter((name) => importMs?.[name] === undefined);
  const at = `at ${rate} msg/s sustained, containers living ${assume.containerLifetimeMinutes} min`;
  return [
    line(
      'CloudWatch Logs ingested (GB)',
      `$${PRICES.cloudWatchLogsIngestedGb} / GB`,
      PRICES.cloudWatchLogsIngestedGb,
      logs.billedBytesPerMessage / GB,
      messages,
      `${round(logs.billedBytesPerMessage, 0)} B/msg: application ${round(logs.applicationBytes, 0)}, platform ${round(logs.platformBytes, 0)}, EMF ${round(logs.emfBytes, 0)}, cold start ${round(logs.coldStartBytes, 1)}, access log ${round(logs.accessLogBytes, 0)}, +26 B × ${round(logs.events, 2)} events`,
    ),
    line(
      'X-Ray traces recorded',
      `$${round(PRICES.xrayTraceRecorded * 1e6, 4)} / 1M`,
      PRICES.xrayTraceRecorded,
      traces,
      messages,
      traced.length === 0
        ? 'no invocation starts a trace: PassThrough tracing, and no upstream samples (tracesOwnInvocations)'
        : `Lambda's rule (1/s + 5%) per function that starts traces (${traced.join(', ')}), ${at}`,
    ),
    line(
      'KMS requests',
      `$${round(PRICES.kmsRequest * 1e4, 4)} / 10K`,
      PRICES.kmsRequest,
      kmsPeriodic + secrets,
      messages,
      `${holders.tablePrincipals} table principals + ${holders.queuePrincipals} queue principals + ${holders.bucketKeys} bucket keys + ${holders.bus} bus, one request per ${PERIODS.kmsCache} s each, + one Decrypt per GetSecretValue; ${at}`,
    ),
    line(
      'Secrets Manager GetSecretValue',
      `$${round(PRICES.secretsManagerApiCall * 1e4, 4)} / 10K`,
      PRICES.secretsManagerApiCall,
      secrets,
      messages,
      `${SECRET_READERS[which].join(', ')}: one per container per ${PERIODS.secretCache} s, ${at}`,
    ),
    line(
      'Lambda INIT (GB-s, billed since 2025-08-01)',
      `$${PRICES.lambdaInitArmGbSecond} / GB-s`,
      PRICES.lambdaInitArmGbSecond,
      initGbs,
      messages,
      missingInit.length > 0
        ? `no cold-start figures for ${missingInit.join(', ')} (run the cold-start scenario)`
        : `cold-start import ms × memory × cold starts, ${at}`,
    ),
  ];
};

/** The log bytes of the reconcile run with every recipient due, per recipient. */
export const reconcileLogLine = (duePhase: PhaseFigures, deployment: Deployment): CostLine => {
  const logs = logBreakdown(duePhase, deployment);
  return line(
    'reconcile: CloudWatch Logs ingested (GB)',
    `$${PRICES.cloudWatchLogsIngestedGb} / GB`,
    PRICES.cloudWatchLogsIngestedGb,
    logs.billedBytesPerMessage / GB,
    duePhase.messages,
    `${round(logs.billedBytesPerMessage, 1)} B/recipient: application ${round(logs.applicationBytes, 1)}, platform and EMF lines of the run ${round(logs.platformBytes + logs.emfBytes, 1)}`,
  );
};

/** Reconcile-status's fixed cost per run (its idle run), spread over the messages of an hour. */
export const reconcileFixedLine = (
  usdPerRun: number,
  messages: number,
  assume: PeriodAssumptions = SUSTAINED,
): CostLine =>
  line(
    'reconcile: fixed work per run (spread)',
    `$${round(usdPerRun * 1e6, 2)} per 1M runs`,
    usdPerRun,
    perPeriodRequestsPerMessage(1, PERIODS.reconcileRun, assume.messagesPerSecond),
    messages,
    `one run per ${PERIODS.reconcileRun / 60} min at ${assume.messagesPerSecond} msg/s`,
  );

/**
 * The NAT's data processing (fixed egress, `nat` mode), per message: what still crosses it with
 * the gateway endpoints for DynamoDB and S3 (`natTraffic`). Priced here at `prices.ts`'s Region,
 * like every line of the scenario's `cost`; `natPerMillionInRegion` prices it in another.
 */
export const natLine = (
  phase: PhaseFigures,
  /** Traffic of the same messages outside the phase (the reconcile runs beyond their fixed run). */
  more: readonly TrafficSnapshot[] = [],
): CostLine & { readonly bytes: ReturnType<typeof natTraffic> } => {
  const parts = [phase.traffic, ...more].map(natTraffic);
  const sum = (part: keyof ReturnType<typeof natTraffic>) =>
    parts.reduce((total, p) => total + p[part], 0);
  const bytes = {
    gateway: sum('gateway'),
    awsApisThroughNat: sum('awsApisThroughNat'),
    awsApisThroughGatewayEndpoints: sum('awsApisThroughGatewayEndpoints'),
  };
  const per = (n: number) => round(n / Math.max(1, phase.messages), 0);
  const perMessage =
    phase.messages > 0 ? (bytes.gateway + bytes.awsApisThroughNat) / phase.messages : 0;
  return {
    ...line(
      'NAT gateway data processed (GB)',
      `$${PRICES.natGatewayGb} / GB`,
      PRICES.natGatewayGb,
      perMessage / GB,
      phase.messages,
      `${round(perMessage, 0)} B/msg through the NAT: gateway ${per(bytes.gateway)}, other AWS APIs of VPC functions ${per(bytes.awsApisThroughNat)}; DynamoDB and S3 through the gateway endpoints, free: ${per(bytes.awsApisThroughGatewayEndpoints)}`,
    ),
    bytes,
  };
};

/** USD per million messages of the NAT line in `region`: its bytes at that Region's price. */
export const natPerMillionInRegion = (
  nat: { readonly unitsPerMessage: number },
  region: Region,
): number => nat.unitsPerMessage * REGIONAL_PRICES[region].natGatewayGb * 1e6;

/**
 * What each front door costs on the webhook requests of a phase, USD per million messages: its
 * request charge, and for the REST API its access-log lines (an HTTP API writes none unless
 * configured; function URLs none).
 */
export const frontDoors = (phase: PhaseFigures, logs: LogBreakdown): Record<Front, number> => {
  const requests = sumWhere(phase.calls, isKey('webhooks POST'));
  // Every webhook body counted is a few KB: one 512 KB HTTP API unit each.
  const charges = frontDoorCosts(requests, requests, phase.messages);
  return {
    ...charges,
    restApi:
      charges.restApi +
      perGbCostPerMillion(logs.restApiAccessLogBilledBytes, PRICES.cloudWatchLogsIngestedGb),
  };
};
