/**
 * The cost model in the two Regions that matter to a Korean gateway's users: US East (N. Virginia),
 * where `prices.ts` is written, and Asia Pacific (Seoul), where they deploy. It re-prices the
 * counted and modelled lines of a scenario with each Region's prices, adds the storage that grows
 * with every message (the event table and its point-in-time recovery, attachments, the event
 * archive, the log groups) for the retentions the stack configures, and computes the floor a goal
 * is judged against. Pure functions, unit-tested (test/unit/bench-regional-cost.test.ts).
 */
import { GB } from './cost-model.ts';
import { PRICES } from './prices.ts';

export const REGIONS = ['us-east-1', 'ap-northeast-2'] as const;
export type Region = (typeof REGIONS)[number];

/** Where the goals are judged: the Region a Korean gateway's users deploy in. */
export const DEPLOYED_REGION: Region = 'ap-northeast-2';

/** Storage prices (per GB-month) next to the request prices of `prices.ts`. */
interface StoragePrices {
  /** DynamoDB Standard table class, per GB-month stored (items plus 100 bytes each). */
  readonly dynamoDbStorageGbMonth: number;
  /** DynamoDB continuous backups (point-in-time recovery), per GB-month of table size. */
  readonly dynamoDbPitrGbMonth: number;
  /** S3 Standard, per GB-month (first 50 TB). */
  readonly s3StandardGbMonth: number;
  /** EventBridge archive storage, per GB-month. */
  readonly eventBridgeArchiveStorageGbMonth: number;
  /** CloudWatch Logs storage (archived, compressed), per GB-month. */
  readonly cloudWatchLogsStorageGbMonth: number;
}

export type PriceTable = { readonly [K in keyof typeof PRICES]: number } & StoragePrices;

/**
 * Each Region's prices, USD, first tier, no free tier, as the public pricing pages list them
 * (the sources of `prices.ts`; the Seoul column of each page). Written 2026-11-28. These machines
 * cannot reach the pages: the Seoul figures are the pages' Seoul column as last read, not fetched
 * by the benchmark; check the pages before quoting a cost.
 */
export const REGIONAL_PRICES: Readonly<Record<Region, PriceTable>> = {
  'us-east-1': {
    ...PRICES,
    dynamoDbStorageGbMonth: 0.25,
    dynamoDbPitrGbMonth: 0.2,
    s3StandardGbMonth: 0.023,
    eventBridgeArchiveStorageGbMonth: 0.023,
    cloudWatchLogsStorageGbMonth: 0.03,
  },
  'ap-northeast-2': {
    ...PRICES,
    // DynamoDB on-demand (after the 2024-11-01 cut), Standard class.
    dynamoDbWriteRequestUnit: 0.6778 / 1e6,
    dynamoDbReadRequestUnit: 0.1356 / 1e6,
    dynamoDbStorageGbMonth: 0.27075,
    dynamoDbPitrGbMonth: 0.228,
    // S3 Standard.
    s3PutRequest: 0.0045 / 1_000,
    s3GetRequest: 0.00035 / 1_000,
    s3StandardGbMonth: 0.025,
    eventBridgeArchiveStorageGbMonth: 0.025,
    // CloudWatch Logs, Standard class.
    cloudWatchLogsIngestedGb: 0.76,
    cloudWatchLogsStorageGbMonth: 0.0314,
    // VPC: NAT gateway per hour and per GB (https://aws.amazon.com/vpc/pricing/, Seoul; read
    // 2026-11-28; not re-read 2026-12-07, when the page's Seoul column was not reachable).
    natGatewayGb: 0.059,
    natGatewayHour: 0.059,
    // API Gateway HTTP API (REST: 3.50, as in US East).
    apiGatewayHttpRequest: 1.23 / 1e6,
  },
};

/**
 * Prices whose Seoul column could not be read when they were added (2026-12-07): Seoul is priced
 * at US East's here, and every figure built on one says so. The per-resource CloudWatch, Secrets
 * Manager, Scheduler and public IPv4 prices are listed by AWS without a Region column or with the
 * same figure in most Regions; EC2 and EBS are known to cost more in Seoul than in US East, so the
 * NAT instance's lines are a floor.
 */
export const US_EAST_PRICES_IN_SEOUL: ReadonlySet<keyof PriceTable> = new Set<keyof PriceTable>([
  'sqsRequest',
  'secretsManagerSecretMonth',
  'cloudWatchAlarmMonth',
  'cloudWatchDashboardMonth',
  'cloudWatchCustomMetricMonth',
  'cloudWatchVendedLogsGb',
  'eventBridgeSchedulerInvocation',
  'ec2T4gNanoHour',
  'ebsGp3GbMonth',
]);

/** " (US East's price: Seoul's not read)" when `key` is such a price in `region`, else "". */
export const priceCaveat = (key: keyof PriceTable, region: Region): string =>
  region !== 'us-east-1' && US_EAST_PRICES_IN_SEOUL.has(key)
    ? " (US East's price: Seoul's not read)"
    : '';

/** Which price each line of a scenario's cost table is billed at (by its name). */
const LINE_PRICES: Readonly<Record<string, keyof PriceTable | 'free'>> = {
  'API Gateway REST requests (deployed front)': 'apiGatewayRestRequest',
  'Lambda function URL requests (deployed front)': 'lambdaFunctionUrlRequest',
  'Lambda requests': 'lambdaRequest',
  'Lambda GB-seconds (arm64)': 'lambdaArmGbSecond',
  'Lambda INIT (GB-s, billed since 2025-08-01)': 'lambdaInitArmGbSecond',
  'DynamoDB write request units': 'dynamoDbWriteRequestUnit',
  'DynamoDB read request units': 'dynamoDbReadRequestUnit',
  'DynamoDB Streams GetRecords': 'free',
  'SQS requests (64 KB chunks)': 'sqsRequest',
  'EventBridge events (64 KB chunks)': 'eventBridgeEvent',
  'EventBridge archive (GB processed)': 'eventBridgeArchiveGb',
  'S3 PUT-class requests': 's3PutRequest',
  'S3 GET-class requests': 's3GetRequest',
  'CloudWatch Logs ingested (GB)': 'cloudWatchLogsIngestedGb',
  'X-Ray traces recorded': 'xrayTraceRecorded',
  'KMS requests': 'kmsRequest',
  'Secrets Manager GetSecretValue': 'secretsManagerApiCall',
  'NAT gateway data processed (GB)': 'natGatewayGb',
};

/** reconcile-status's fixed run, spread over recipients: a sum of lines, re-priced as their mix. */
const RECONCILE_FIXED = 'reconcile: fixed work per run (spread)';
const RECONCILE_PREFIX = 'reconcile: ';

/** The part of a priced line the re-pricing reads and writes. */
export interface LineCost {
  readonly line: string;
  readonly unitPrice: number;
  readonly unitsPerMessage: number;
  readonly usdPerMillion: number;
}

/** The price key of a line, or a clear error for a line the model does not know. */
export const priceKeyOf = (line: string): keyof PriceTable | 'free' => {
  const name = line.startsWith(RECONCILE_PREFIX) ? line.slice(RECONCILE_PREFIX.length) : line;
  const key = LINE_PRICES[name];
  if (key === undefined)
    throw new Error(`regional cost: no price for the line "${line}"; add it to LINE_PRICES`);
  return key;
};

/**
 * `lines` (priced in US East by the scenario) at `region`'s prices. The spread fixed reconcile run
 * is scaled by how the other reconcile lines' total changes between the Regions.
 */
export const repriced = <L extends LineCost>(lines: readonly L[], region: Region): L[] => {
  const prices = REGIONAL_PRICES[region];
  const price = (line: L): number => {
    const key = priceKeyOf(line.line);
    return key === 'free' ? 0 : prices[key];
  };
  const plain = lines.filter((line) => line.line !== RECONCILE_FIXED);
  const reconcileLines = plain.filter((line) => line.line.startsWith(RECONCILE_PREFIX));
  const atHome = reconcileLines.reduce((sum, line) => sum + line.usdPerMillion, 0);
  const there = reconcileLines.reduce(
    (sum, line) => sum + line.unitsPerMessage * price(line) * 1e6,
    0,
  );
  const fixedScale = atHome > 0 ? there / atHome : 1;
  return lines.map((line) => {
    if (line.line === RECONCILE_FIXED)
      return {
        ...line,
        unitPrice: line.unitPrice * fixedScale,
        usdPerMillion: line.usdPerMillion * fixedScale,
      };
    const unitPrice = price(line);
    return { ...line, unitPrice, usdPerMillion: line.unitsPerMessage * unitPrice * 1e6 };
  });
};

/** The sum of `lines`' cost per million messages. */
export const totalOf = (lines: readonly { usdPerMillion: number }[]): number =>
  lines.reduce((sum, line) => sum + line.usdPerMillion, 0);

/**
 * The floor of a path per million messages in `region`: what no design of it can go below, one
 * event on the bus and one write unit per message, plus the Lambda share the scenario measured
 * (requests and GB-seconds of the functions on the path, per message).
 */
export const floorPerMillion = (lines: readonly LineCost[], region: Region): number => {
  const prices = REGIONAL_PRICES[region];
  const lambda = repriced(
    lines.filter(
      (line) => line.line === 'Lambda requests' || line.line === 'Lambda GB-seconds (arm64)',
    ),
    region,
  );
  return (prices.eventBridgeEvent + prices.dynamoDbWriteRequestUnit) * 1e6 + totalOf(lambda);
};

/** How long the stack keeps what grows with every message, in days. */
export interface Retentions {
  /** Event-table items (their TTL, `EVENT_RETENTION_DAYS`). */
  readonly eventDays: number;
  /** Whether the event table has point-in-time recovery (billed on its size). */
  readonly pointInTimeRecovery: boolean;
  /** Inbound attachments (the bucket's lifecycle expiration). */
  readonly attachmentDays: number;
  /** The event bus archive. */
  readonly archiveDays: number;
  /** The functions' log groups. */
  readonly logDays: number;
}

/** What a message leaves stored, in bytes as each service bills it. */
export interface StoredPerMessage {
  /** Event-table items: attribute names and values plus 100 bytes per item. */
  readonly dynamoDbBytes: number;
  /** Attachment objects. */
  readonly s3Bytes: number;
  /** Events processed into the archive. */
  readonly archiveBytes: number;
  /** Log bytes ingested (stored compressed: this is the upper bound). */
  readonly logBytes: number;
}

/** Days per month as AWS prorates GB-months (365.25 / 12). */
export const DAYS_PER_MONTH = 365.25 / 12;

/**
 * The storage lines of one message kept for `retentions`: bytes × the months it is kept × the
 * GB-month price. A stored byte is billed for the whole retention (items expire by TTL at its
 * end; deletion by TTL is free), so a steady flow of messages holds `retention` days of them.
 */
export const storageLines = (
  stored: StoredPerMessage,
  retentions: Retentions,
  region: Region,
): Array<LineCost & { readonly basis: string }> => {
  const prices = REGIONAL_PRICES[region];
  const gbMonths = (bytes: number, days: number) => (bytes / GB) * (days / DAYS_PER_MONTH);
  const line = (name: string, unitPrice: number, unitsPerMessage: number, basis: string) => ({
    line: name,
    unitPrice,
    unitsPerMessage,
    usdPerMillion: unitsPerMessage * unitPrice * 1e6,
    basis,
  });
  const table = gbMonths(stored.dynamoDbBytes, retentions.eventDays);
  return [
    line(
      'DynamoDB storage (GB-month)',
      prices.dynamoDbStorageGbMonth,
      table,
      `${Math.round(stored.dynamoDbBytes)} B per message for ${retentions.eventDays} days`,
    ),
    line(
      'DynamoDB point-in-time recovery (GB-month)',
      retentions.pointInTimeRecovery ? prices.dynamoDbPitrGbMonth : 0,
      table,
      retentions.pointInTimeRecovery ? 'on the table size, as above' : 'off',
    ),
    line(
      'S3 Standard storage (GB-month)',
      prices.s3StandardGbMonth,
      gbMonths(stored.s3Bytes, retentions.attachmentDays),
      `${Math.round(stored.s3Bytes)} B of attachments per message for ${retentions.attachmentDays} days`,
    ),
    line(
      'EventBridge archive storage (GB-month)',
      prices.eventBridgeArchiveStorageGbMonth,
      gbMonths(stored.archiveBytes, retentions.archiveDays),
      `${Math.round(stored.archiveBytes)} B of events per message for ${retentions.archiveDays} days`,
    ),
    line(
      'CloudWatch Logs storage (GB-month)',
      prices.cloudWatchLogsStorageGbMonth,
      gbMonths(stored.logBytes, retentions.logDays),
      `${Math.round(stored.logBytes)} B ingested per message for ${retentions.logDays} days (stored compressed: an upper bound)`,
    ),
  ];
};

/** A path's cost in one Region: re-priced lines, storage, total, floor and their ratio. */
export const regionalCost = (
  lines: readonly LineCost[],
  stored: StoredPerMessage,
  retentions: Retentions,
  region: Region,
) => {
  const running = totalOf(repriced(lines, region));
  const storage = storageLines(stored, retentions, region);
  const storageTotal = totalOf(storage);
  const floor = floorPerMillion(lines, region);
  const total = running + storageTotal;
  return {
    costPerMillionUsd: total,
    runningCostPerMillionUsd: running,
    storageCostPerMillionUsd: storageTotal,
    floorPerMillionUsd: floor,
    ratioToFloor: floor > 0 ? total / floor : Number.NaN,
    runningRatioToFloor: floor > 0 ? running / floor : Number.NaN,
    storage,
  };
};
