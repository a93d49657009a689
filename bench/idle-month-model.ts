/**
 * The idle month: what a deployment costs in a month in which it sends and receives nothing, line
 * by line, per egress option, in a Region. What the stack deploys is read from its synthesized
 * template (`idle-month-inventory.ts`); what the functions do at idle (their schedules, the metrics
 * they emit, the reconcile run's reads) from the code and the `end-to-end` run; the prices from
 * `regional-cost.ts`. Pure functions of those, unit-tested (test/unit/bench-idle-month.test.ts).
 * List prices without free tiers, as everywhere in the bench: each line's `basis` names the free
 * allowance an account may have left.
 */
import { HOURS_PER_MONTH } from './prices.ts';
import {
  DAYS_PER_MONTH,
  type PriceTable,
  priceCaveat,
  priceKeyOf,
  REGIONAL_PRICES,
  type Region,
} from './regional-cost.ts';

/** The fixed egress a deployment chooses: the default NAT gateway, or one NAT instance. */
export const EGRESS_OPTIONS = ['natGateway', 'natInstance'] as const;
export type EgressOption = (typeof EGRESS_OPTIONS)[number];

/** A function a schedule invokes, as the template configures it. */
export interface ScheduledFunction {
  readonly name: string;
  /** Minutes between invocations (`rate(N minutes)`). */
  readonly everyMinutes: number;
  readonly memoryMb: number;
  /** Lambda's own sampling (`Active`): each idle invocation is under 1 a second, so traced. */
  readonly traced: boolean;
  /** Whether it runs in the egress VPC (its flows are in the VPC flow log). */
  readonly inVpc: boolean;
  /**
   * Its billed work per invocation beyond Lambda's request and duration, by cost line name
   * (`regional-cost.ts`' `LINE_PRICES`), e.g. the reconcile run's DynamoDB reads.
   */
  readonly unitsPerInvocation: Readonly<Record<string, number>>;
  /** Handler time per invocation at idle, ms (measured, or modelled and said so in `timeBasis`). */
  readonly msPerInvocation: number;
  readonly timeBasis: string;
  /** Log bytes one idle invocation ingests (platform, EMF and application lines, +26 B each). */
  readonly logBytesPerInvocation: number;
}

/** What a deployment holds that bills by the month, whatever its traffic: one egress option's. */
export interface Inventory {
  readonly natGateways: number;
  readonly natInstances: number;
  /** The NAT instance's EBS volume, GB (0 without one). */
  readonly natInstanceVolumeGb: number;
  /** Public IPv4 addresses (the NAT's Elastic IPs). */
  readonly publicIpv4Addresses: number;
  readonly kmsKeys: number;
  /** Backing keys that automatic rotation has added to each key (0 in the first year). */
  readonly kmsRotations: number;
  readonly secrets: number;
  /** Metrics alarmed on: one per single-metric alarm, one per metric of a metric-math alarm. */
  readonly alarmMetrics: number;
  readonly alarms: number;
  readonly dashboards: number;
  /** Custom (EMF) metrics that receive data every hour of an idle month. */
  readonly idleCustomMetrics: number;
  readonly schedules: readonly ScheduledFunction[];
  /** SQS queues a Lambda event source mapping polls. */
  readonly sqsEventSources: number;
  /** DynamoDB streams a Lambda event source mapping reads (GetRecords from Lambda are free). */
  readonly streamEventSources: number;
  /** Whether the VPC's flows go to a CloudWatch Logs group (vended logs). */
  readonly flowLogs: boolean;
  /** Gateway VPC endpoints (DynamoDB, S3): free. */
  readonly gatewayEndpoints: number;
  /** The functions' log groups' retention, days. */
  readonly logRetentionDays: number;
  /** The flow log group's retention, days. */
  readonly flowLogRetentionDays: number;
}

/** Assumptions of the idle month that no template states; shown next to the figures. */
export interface IdleAssumptions {
  /**
   * Pollers Lambda keeps per SQS event source at idle: five, each long-polling 20 s (three
   * ReceiveMessage calls a minute). Lambda may go down to two only on event sources without a
   * maximum concurrency, and the stack sets one on both
   * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html, read 2026-12-07).
   */
  readonly pollersPerSqsSource: number;
  readonly receivesPerPollerPerMinute: number;
  /** Flow-log records per VPC function invocation (its connections, both directions, both ENIs). */
  readonly flowRecordsPerInvocation: number;
  /** Flow-log records a day of unsolicited traffic at the public address (scanners). */
  readonly unsolicitedFlowRecordsPerDay: number;
  /** Bytes of one flow-log record in the default format. */
  readonly flowRecordBytes: number;
}

export const IDLE_ASSUMPTIONS: IdleAssumptions = {
  pollersPerSqsSource: 5,
  receivesPerPollerPerMinute: 3,
  flowRecordsPerInvocation: 20,
  unsolicitedFlowRecordsPerDay: 2_000,
  flowRecordBytes: 125,
};

/** One line of the month: its quantity, unit price and cost. */
export interface MonthLine {
  readonly line: string;
  readonly quantity: number;
  readonly unit: string;
  readonly unitPrice: number;
  readonly usdPerMonth: number;
  readonly basis: string;
}

const GB = 1024 ** 3;
const MINUTES_PER_MONTH = HOURS_PER_MONTH * 60;

/** Invocations a month of a schedule of `everyMinutes`. */
export const invocationsPerMonth = (everyMinutes: number): number =>
  everyMinutes > 0 ? MINUTES_PER_MONTH / everyMinutes : 0;

/**
 * The idle month of `inventory` in `region`, line by line. Every line is a count the template or
 * the code gives times a price; lines that are zero at idle (storage, PITR, gateway endpoints,
 * stream polling) are listed at zero with why.
 */
export const idleMonthLines = (
  inventory: Inventory,
  region: Region,
  assume: IdleAssumptions = IDLE_ASSUMPTIONS,
): MonthLine[] => {
  const prices = REGIONAL_PRICES[region];
  const line = (
    name: string,
    quantity: number,
    unit: string,
    key: keyof PriceTable | 'free',
    basis: string,
  ): MonthLine => {
    const unitPrice = key === 'free' ? 0 : prices[key];
    return {
      line: name,
      quantity,
      unit,
      unitPrice,
      usdPerMonth: quantity * unitPrice,
      basis: key === 'free' ? basis : `${basis}${priceCaveat(key, region)}`,
    };
  };
  const hours = HOURS_PER_MONTH;
  const scheduled = inventory.schedules.map((fn) => ({
    ...fn,
    invocations: invocationsPerMonth(fn.everyMinutes),
  }));
  const invocations = scheduled.reduce((sum, fn) => sum + fn.invocations, 0);
  const gbSeconds = scheduled.reduce(
    (sum, fn) => sum + fn.invocations * (fn.msPerInvocation / 1_000) * (fn.memoryMb / 1_024),
    0,
  );
  const traces = scheduled.reduce((sum, fn) => sum + (fn.traced ? fn.invocations : 0), 0);
  const logBytes = scheduled.reduce(
    (sum, fn) => sum + fn.invocations * fn.logBytesPerInvocation,
    0,
  );
  const vpcInvocations = scheduled.reduce((sum, fn) => sum + (fn.inVpc ? fn.invocations : 0), 0);
  const flowBytes = inventory.flowLogs
    ? (vpcInvocations * assume.flowRecordsPerInvocation +
        assume.unsolicitedFlowRecordsPerDay * DAYS_PER_MONTH * inventory.publicIpv4Addresses) *
      assume.flowRecordBytes
    : 0;
  const sqsReceives =
    inventory.sqsEventSources *
    assume.pollersPerSqsSource *
    assume.receivesPerPollerPerMinute *
    MINUTES_PER_MONTH;
  // The scheduled work beyond Lambda (the reconcile run's reads, its lease write), by cost line.
  const workUnits = new Map<string, number>();
  for (const fn of scheduled)
    for (const [name, units] of Object.entries(fn.unitsPerInvocation))
      workUnits.set(name, (workUnits.get(name) ?? 0) + units * fn.invocations);
  const work = [...workUnits].map(([name, units]) =>
    line(
      `${name} (scheduled runs)`,
      units,
      'units',
      priceKeyOf(name),
      scheduled
        .filter((fn) => (fn.unitsPerInvocation[name] ?? 0) > 0)
        .map((fn) => `${fn.name} ${fn.unitsPerInvocation[name]} a run (${fn.timeBasis})`)
        .join(', '),
    ),
  );
  const schedules = scheduled
    .map((fn) => `${fn.name} every ${fn.everyMinutes} min (${Math.round(fn.invocations)})`)
    .join(', ');
  return [
    line(
      'NAT gateway hours',
      inventory.natGateways * hours,
      'NAT gateway-hours',
      'natGatewayHour',
      `${inventory.natGateways} NAT gateway × ${hours} h`,
    ),
    line(
      'NAT instance hours (t4g.nano)',
      inventory.natInstances * hours,
      'instance-hours',
      'ec2T4gNanoHour',
      `${inventory.natInstances} instance × ${hours} h`,
    ),
    line(
      'NAT instance volume (gp3)',
      inventory.natInstances * inventory.natInstanceVolumeGb,
      'GB-months',
      'ebsGp3GbMonth',
      `${inventory.natInstances} × ${inventory.natInstanceVolumeGb} GB root volume`,
    ),
    line(
      'Public IPv4 addresses',
      inventory.publicIpv4Addresses * hours,
      'address-hours',
      'publicIpv4Hour',
      `${inventory.publicIpv4Addresses} Elastic IP × ${hours} h, charged in use or not`,
    ),
    line(
      'KMS customer managed keys',
      inventory.kmsKeys * (1 + inventory.kmsRotations),
      'key-months',
      'kmsKeyMonth',
      `${inventory.kmsKeys} key; automatic rotation adds $1 a month per backing key it generates (yearly: ${inventory.kmsRotations} so far)`,
    ),
    line(
      'Secrets Manager secrets',
      inventory.secrets,
      'secret-months',
      'secretsManagerSecretMonth',
      `${inventory.secrets} secrets in the template`,
    ),
    line(
      'CloudWatch alarms (standard resolution)',
      inventory.alarmMetrics,
      'alarm metrics',
      'cloudWatchAlarmMonth',
      `${inventory.alarms} alarms on ${inventory.alarmMetrics} metrics (a metric-math alarm bills each metric); an account's first 10 free, not applied`,
    ),
    line(
      'CloudWatch dashboard',
      inventory.dashboards,
      'dashboard-months',
      'cloudWatchDashboardMonth',
      `${inventory.dashboards} dashboard; an account's first 3 free, not applied`,
    ),
    line(
      'CloudWatch custom metrics (EMF) at idle',
      inventory.idleCustomMetrics,
      'metric-months',
      'cloudWatchCustomMetricMonth',
      `${inventory.idleCustomMetrics} metric name × dimension sets the scheduled functions emit every run (prorated by the hour, billed only in hours with data); an account's first 10 free, not applied`,
    ),
    line(
      'EventBridge Scheduler invocations',
      invocations,
      'invocations',
      'eventBridgeSchedulerInvocation',
      `${schedules}; an account's first 14 million a month free, not applied`,
    ),
    line(
      'Lambda requests (scheduled)',
      invocations,
      'requests',
      'lambdaRequest',
      'the scheduled invocations',
    ),
    line(
      'Lambda GB-seconds (scheduled, arm64)',
      gbSeconds,
      'GB-s',
      'lambdaArmGbSecond',
      scheduled
        .map((fn) => `${fn.name} ${Math.round(fn.msPerInvocation)} ms (${fn.timeBasis})`)
        .join(', '),
    ),
    ...work,
    line(
      'SQS requests (event sources polling empty queues)',
      sqsReceives,
      'requests',
      'sqsRequest',
      `${inventory.sqsEventSources} SQS event sources × ${assume.pollersPerSqsSource} pollers × ${assume.receivesPerPollerPerMinute} long polls (20 s) a minute; an account's first 1 million free, not applied`,
    ),
    line(
      'DynamoDB Streams GetRecords (event sources)',
      0,
      'requests',
      'free',
      `${inventory.streamEventSources} stream event sources: Lambda's GetRecords are free`,
    ),
    line(
      'X-Ray traces (scheduled)',
      traces,
      'traces',
      'xrayTraceRecorded',
      'each invocation of a function with Active tracing (under 1 a second: all sampled); first 100,000 a month free, not applied',
    ),
    line(
      'CloudWatch Logs ingested (scheduled functions)',
      logBytes / GB,
      'GB',
      'cloudWatchLogsIngestedGb',
      `${Math.round(logBytes / Math.max(1, invocations))} B per idle invocation`,
    ),
    line(
      'CloudWatch Logs stored (scheduled functions)',
      (logBytes / GB) * (inventory.logRetentionDays / DAYS_PER_MONTH),
      'GB-months',
      'cloudWatchLogsStorageGbMonth',
      `a month's ingestion kept ${inventory.logRetentionDays} days (stored compressed: an upper bound)`,
    ),
    line(
      'VPC flow logs delivered to CloudWatch Logs',
      flowBytes / GB,
      'GB',
      'cloudWatchVendedLogsGb',
      inventory.flowLogs
        ? `${assume.flowRecordsPerInvocation} records per VPC function invocation + ${assume.unsolicitedFlowRecordsPerDay} a day of unsolicited traffic per public address, ${assume.flowRecordBytes} B each (an estimate)`
        : 'no flow log',
    ),
    line(
      'VPC flow logs stored',
      (flowBytes / GB) * (inventory.flowLogRetentionDays / DAYS_PER_MONTH),
      'GB-months',
      'cloudWatchLogsStorageGbMonth',
      `kept ${inventory.flowLogRetentionDays} days: at steady state a month of ingestion × ${inventory.flowLogRetentionDays} / 30.4`,
    ),
    line(
      'DynamoDB, S3, archive storage and PITR',
      0,
      'GB-months',
      'free',
      'nothing grows at idle: the tables hold a token and a lease (under 1 KB); storage per message is in the per-million figures',
    ),
    line(
      'Gateway VPC endpoints (DynamoDB, S3)',
      inventory.gatewayEndpoints,
      'endpoints',
      'free',
      'gateway endpoints have no hourly or data charge',
    ),
  ];
};

/**
 * What an account's always-free allowances take off a line, in its units, when nothing else in the
 * account uses them (an account's, not a stack's: another workload may have used them up).
 */
export const FREE_TIER: Readonly<Record<string, number>> = {
  'CloudWatch alarms (standard resolution)': 10,
  'CloudWatch dashboard': 3,
  'CloudWatch custom metrics (EMF) at idle': 10,
  'EventBridge Scheduler invocations': 14e6,
  'Lambda requests (scheduled)': 1e6,
  'Lambda GB-seconds (scheduled, arm64)': 400_000,
  'KMS requests (scheduled runs)': 20_000,
  'SQS requests (event sources polling empty queues)': 1e6,
  'X-Ray traces (scheduled)': 100_000,
  'CloudWatch Logs ingested (scheduled functions)': 5,
};

/** `lines`' monthly cost after `FREE_TIER`, for an account with nothing else. */
export const monthTotalAfterFreeTier = (lines: readonly MonthLine[]): number =>
  lines.reduce(
    (sum, line) => sum + Math.max(0, line.quantity - (FREE_TIER[line.line] ?? 0)) * line.unitPrice,
    0,
  );

/** The sum of `lines`' monthly cost. */
export const monthTotal = (lines: readonly MonthLine[]): number =>
  lines.reduce((sum, line) => sum + line.usdPerMonth, 0);

/** The idle month of each egress option in `region`: its lines and total. */
export const idleMonth = (
  inventories: Readonly<Record<EgressOption, Inventory>>,
  region: Region,
  assume: IdleAssumptions = IDLE_ASSUMPTIONS,
): Record<EgressOption, IdleMonth> =>
  Object.fromEntries(
    EGRESS_OPTIONS.map((option) => {
      const lines = idleMonthLines(inventories[option], region, assume);
      return [
        option,
        {
          lines,
          totalUsd: monthTotal(lines),
          totalUsdAfterFreeTier: monthTotalAfterFreeTier(lines),
        },
      ];
    }),
  ) as Record<EgressOption, IdleMonth>;

/** One option's idle month. */
export interface IdleMonth {
  readonly lines: MonthLine[];
  readonly totalUsd: number;
  /** With the account's always-free allowances (`FREE_TIER`) all left for this stack. */
  readonly totalUsdAfterFreeTier: number;
}

/**
 * The month at `messagesPerMonth`: the idle month plus the per-million cost (storage included) of
 * that many messages. The idle lines that traffic also drives (Lambda, logs) are counted in both,
 * a few cents at most.
 */
export const monthAt = (
  idleUsd: number,
  costPerMillionUsd: number,
  messagesPerMonth: number,
): number => idleUsd + (costPerMillionUsd * messagesPerMonth) / 1e6;
