/**
 * The default quotas of an AWS account that bind the bridge's paths, per Region, as AWS's
 * documentation lists them — the ceiling a default account has before anyone asks for more. One
 * module, read by the `scale` benchmark (the ceiling at default quotas), by `msgbridge doctor`
 * (against the quotas the account has applied) and by the before-deploy rules (the concurrency the
 * template fixes against the account's); docs/performance.md's quota table is generated from it
 * (`npm run docs:quotas`) and a unit test fails when the page is stale.
 *
 * Each figure is copied from the page named with it, read on {@link QUOTAS_READ_ON}. A Region a
 * page does not name gets the page's figure for "each of the other supported Regions"; none is
 * estimated. The Service Quotas codes are the ones the pages link to, except where
 * `quotaCodeSource` says otherwise.
 */

/** The day the pages below were read. */
export const QUOTAS_READ_ON = '2026-12-07';

/** One page of AWS's documentation. */
export interface QuotaSource {
  readonly title: string;
  readonly url: string;
}

export const QUOTA_SOURCES = {
  eventBridge: {
    title: 'Amazon EventBridge quotas',
    url: 'https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html',
  },
  lambda: {
    title: 'Lambda quotas',
    url: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  dynamoDb: {
    // Titled "Service, account, and table quotas in Amazon DynamoDB" in earlier versions.
    title: 'Quotas in Amazon DynamoDB',
    url: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html',
  },
  dynamoDbPartitions: {
    title: 'Understanding DynamoDB warm throughput in different scenarios',
    url: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoDbNewTable: {
    title: 'Pre-warming a table for on-demand capacity mode',
    url: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html',
  },
  sqs: {
    title: 'Amazon SQS standard queue quotas',
    url: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html',
  },
  scheduler: {
    title: 'Quotas for Amazon EventBridge Scheduler',
    url: 'https://docs.aws.amazon.com/scheduler/latest/UserGuide/scheduler-quotas.html',
  },
} as const satisfies Record<string, QuotaSource>;

/** A quota's default: named Regions, and the figure for every other supported Region. */
export interface DefaultQuota {
  /** The name AWS gives it (the Service Quotas name where there is one). */
  readonly name: string;
  /** Service Quotas' service code and quota code; absent where the quota has none. */
  readonly serviceCode?: string;
  readonly quotaCode?: string;
  /** Where the code comes from when the quota's page does not print it. */
  readonly quotaCodeSource?: string;
  readonly unit: string;
  readonly adjustable: boolean;
  readonly byRegion: Readonly<Record<string, number>>;
  /** "Each of the other supported Regions" (or "each supported Region"). */
  readonly otherRegions: number;
  readonly source: QuotaSource;
  /** What of the bridge it limits, and how. */
  readonly binds: string;
}

/**
 * EventBridge, "Custom Event Bus - Classic quotas" (the bus msgbridge creates routes with rules
 * and targets). PutEvents is counted in requests; each request carries at most 10 entries.
 */
const PUT_EVENTS: DefaultQuota = {
  name: 'PutEvents throttle limit in transactions per second',
  serviceCode: 'events',
  quotaCode: 'L-9B653E91',
  unit: 'requests/s',
  adjustable: true,
  byRegion: {
    'us-east-1': 10_000,
    'us-east-2': 2_400,
    'us-west-1': 1_200,
    'us-west-2': 10_000,
    'ap-east-1': 600,
    'ap-northeast-1': 1_200,
    'ap-northeast-2': 600,
    'ap-south-1': 600,
    'ap-southeast-1': 1_200,
    'ap-southeast-2': 1_200,
    'ca-central-1': 600,
    'eu-central-1': 2_400,
    'eu-north-1': 600,
    'eu-south-2': 2_400,
    'eu-west-1': 10_000,
    'eu-west-2': 1_200,
    'eu-west-3': 600,
    'sa-east-1': 600,
  },
  otherRegions: 400,
  source: QUOTA_SOURCES.eventBridge,
  binds:
    'publish-events: one request per up to 10 events (DESIGN decision 3); the whole account shares it',
};

/** An invocation is an event matching a rule and being sent to its targets; throttled ones are delayed. */
const INVOCATIONS: DefaultQuota = {
  name: 'Invocations throttle limit in transactions per second',
  serviceCode: 'events',
  quotaCode: 'L-5540C5E3',
  unit: 'invocations/s',
  adjustable: true,
  byRegion: {
    'us-east-1': 18_750,
    'us-east-2': 4_500,
    'us-west-1': 2_250,
    'us-west-2': 18_750,
    'ap-east-1': 1_100,
    'ap-northeast-1': 2_250,
    'ap-northeast-2': 1_100,
    'ap-south-1': 1_100,
    'ap-southeast-1': 2_250,
    'ap-southeast-2': 2_250,
    'ca-central-1': 1_100,
    'eu-central-1': 4_500,
    'eu-north-1': 1_100,
    'eu-south-2': 4_500,
    'eu-west-1': 18_750,
    'eu-west-2': 2_250,
    'eu-west-3': 1_100,
    'sa-east-1': 1_100,
  },
  otherRegions: 750,
  source: QUOTA_SOURCES.eventBridge,
  binds:
    "the subscribers' rules: each event on the bus × each rule it matches; above it EventBridge delays deliveries (and retries them for up to 24 hours)",
};

const LAMBDA_CONCURRENCY: DefaultQuota = {
  name: 'Concurrent executions',
  serviceCode: 'lambda',
  quotaCode: 'L-B99A9384',
  quotaCodeSource:
    "the code Service Quotas lists for Lambda's concurrent executions; the Lambda quotas page names the quota, not its code",
  unit: 'executions',
  adjustable: true,
  byRegion: {},
  otherRegions: 1_000,
  source: QUOTA_SOURCES.lambda,
  binds:
    'every function of the account at once: the queue consumers up to their maxConcurrency, the stream consumers per shard, the webhook receivers unreserved; new accounts start lower',
};

/** "Invocation requests per function per Region (synchronous)": a function URL invokes synchronously. */
const SYNCHRONOUS_REQUESTS_PER_ENVIRONMENT: DefaultQuota = {
  name: 'Invocation requests per function per Region (synchronous), per execution environment',
  unit: 'requests/s per execution environment',
  adjustable: false,
  byRegion: {},
  otherRegions: 10,
  source: QUOTA_SOURCES.lambda,
  binds:
    'the webhook receivers behind function URLs: at most 10 × their concurrency requests a second (a report body carries several reports)',
};

const TABLE_WRITES: DefaultQuota = {
  name: 'Table-level write throughput limit',
  serviceCode: 'dynamodb',
  quotaCode: 'L-AB614373',
  quotaCodeSource:
    "the code Service Quotas lists for DynamoDB's table-level write throughput; the DynamoDB page names the quota, not its code",
  unit: 'write request units/s per table',
  adjustable: true,
  byRegion: {},
  otherRegions: 40_000,
  source: QUOTA_SOURCES.dynamoDb,
  binds:
    'the event table (on demand): every write of every path, each at least one write unit; also the ceiling of the stream that feeds publish-events',
};

const PARTITION_WRITES: DefaultQuota = {
  name: 'Write units per partition',
  unit: 'write units/s per partition',
  adjustable: false,
  byRegion: {},
  otherRegions: 1_000,
  source: QUOTA_SOURCES.dynamoDbPartitions,
  binds:
    'one partition key: the TPS limiter splits each second over counter items for it (docs/performance.md); a stream shard carries one partition, so at most this many records a second',
};

const SQS_IN_FLIGHT: DefaultQuota = {
  name: 'Messages per queue (in flight), standard queue',
  unit: 'messages',
  adjustable: true,
  byRegion: {},
  otherRegions: 120_000,
  source: QUOTA_SOURCES.sqs,
  binds:
    'the send queue and the report-check queue: received and not yet deleted; the consumers hold at most maxConcurrency × batch size (2 × 10 and 50 × 100 by default), far below',
};

/** The page's own summary gives the primary Regions' figure; the others' was not read. */
const SCHEDULER_INVOCATIONS: DefaultQuota = {
  name: 'Invocations throttle limit (EventBridge Scheduler)',
  unit: 'invocations/s',
  adjustable: true,
  byRegion: {},
  otherRegions: 1_000,
  source: QUOTA_SOURCES.scheduler,
  binds:
    'the three schedules (refresh-token every 5 minutes, reconcile-status and sweep-attachments every 15): under one invocation a minute, never near it',
};

export const DEFAULT_QUOTAS = {
  putEvents: PUT_EVENTS,
  invocations: INVOCATIONS,
  lambdaConcurrency: LAMBDA_CONCURRENCY,
  synchronousRequestsPerEnvironment: SYNCHRONOUS_REQUESTS_PER_ENVIRONMENT,
  tableWrites: TABLE_WRITES,
  partitionWrites: PARTITION_WRITES,
  sqsInFlight: SQS_IN_FLIGHT,
  schedulerInvocations: SCHEDULER_INVOCATIONS,
} as const satisfies Record<string, DefaultQuota>;

export type QuotaId = keyof typeof DEFAULT_QUOTAS;

/**
 * Regions whose figures below are the "other Regions" one because the page does not name them
 * and their own documentation was not read: the China Regions have their own pages
 * (docs.amazonaws.cn), which were not checked for these quotas.
 */
export const REGIONS_NOT_READ = ['cn-north-1', 'cn-northwest-1'] as const;

/**
 * Scheduler's figure is the page's summary for its "primary Regions"; the stored copy read gave no
 * per-Region list for it, so every Region shows that figure (it binds nothing here either way).
 */
export const PER_REGION_LIST_NOT_READ: readonly QuotaId[] = ['schedulerInvocations'];

/** A quota's default in `region`: the Region's own figure, else the page's for every other. */
export const defaultQuota = (id: QuotaId, region: string): number =>
  DEFAULT_QUOTAS[id].byRegion[region] ?? DEFAULT_QUOTAS[id].otherRegions;

/** The most entries one PutEvents request carries (EventBridge API reference, PutEvents). */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/** A new on-demand table sustains up to 4,000 writes a second ({@link QUOTA_SOURCES.dynamoDbNewTable}). */
export const NEW_ON_DEMAND_TABLE_WRITES_PER_SECOND = 4_000;

/**
 * The stream shards of a new on-demand table: its 4,000 writes a second at 1,000 per partition,
 * and a DynamoDB stream has a shard per partition. More come as the table splits under load.
 */
export const NEW_TABLE_STREAM_SHARDS = Math.ceil(
  NEW_ON_DEMAND_TABLE_WRITES_PER_SECOND / DEFAULT_QUOTAS.partitionWrites.otherRegions,
);

/** What publishing `eventsPerSecond` asks of EventBridge's two rate quotas. */
export interface EventBridgeDemand {
  readonly putEventsRequestsPerSecond: number;
  readonly invocationsPerSecond: number;
}

/**
 * EventBridge's rate quotas for `eventsPerSecond` events: PutEvents requests of
 * `entriesPerRequest` events each (10 when the publisher's batches are full: a stream batch of 10
 * or more records), and one invocation per event per rule it matches (`rulesPerEvent`: the
 * subscribers' rules; one subscriber rule per event unless stated).
 */
export const eventBridgeDemand = (
  eventsPerSecond: number,
  { entriesPerRequest = PUT_EVENTS_MAX_ENTRIES, rulesPerEvent = 1 } = {},
): EventBridgeDemand => {
  if (entriesPerRequest < 1 || entriesPerRequest > PUT_EVENTS_MAX_ENTRIES)
    throw new RangeError(
      `entriesPerRequest must be 1 to ${PUT_EVENTS_MAX_ENTRIES}, got ${entriesPerRequest}`,
    );
  return {
    putEventsRequestsPerSecond: eventsPerSecond / entriesPerRequest,
    invocationsPerSecond: eventsPerSecond * rulesPerEvent,
  };
};
