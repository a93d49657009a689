import { KEY_PREFIX } from './table-keys.ts';
/**
 * The shape of msgbridge's two tables, shared by the CDK stack, the local run and the tests so
 * that every environment creates the same tables.
 */
export interface TableDefinition {
  /** Logical name; the deployed table name is chosen by CloudFormation. */
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Attribute holding the expiry time in epoch seconds. */
  readonly timeToLiveAttribute: string;
  /** Whether the table streams new images (the transactional outbox). */
  readonly stream: boolean;
  /** Sparse secondary indexes (string keys, all attributes projected). */
  readonly indexes?: readonly {
    readonly name: string;
    readonly partitionKey: string;
    readonly sortKey: string;
  }[];
}

/**
 * Accepted sends still waiting for their delivery report, by the hour they were accepted and a
 * shard of that hour (see {@link awaitingReportBucket}): only the `OUTCOME` items of accepted
 * recipients carry these attributes, so the index stays small. `reconcile-status` reads it to find
 * recipients whose report is late.
 */
export const AWAITING_REPORT_INDEX = {
  name: 'awaiting-report',
  partitionKey: 'awaitingReportBucket',
  sortKey: 'acceptedAt',
} as const;

/**
 * Index partition keys per hour of the `awaiting-report` index: one key takes about 1,000 write
 * units a second and its sort key only grows, so an hour's entries are spread over this many
 * (docs/performance.md, "Awaiting reports", has the arithmetic at 5,000 recipients/s). The
 * count may grow but never shrink: a cliKey's shard is its hash modulo the count, so with a
 * larger count the reader still reads every shard the smaller one wrote.
 */
export const AWAITING_REPORT_SHARDS = 16;

const utf8 = new TextEncoder();

/**
 * The shard (0 to `AWAITING_REPORT_SHARDS` − 1) of a cliKey: FNV-1a (32 bit) of its UTF-8 bytes,
 * finished with MurmurHash3's mixer so that every byte moves the low bits. Stable: entries written
 * by one release are read by the next, so this function must never change.
 */
export const awaitingReportShard = (cliKey: string): number => {
  let hash = 0x811c9dc5;
  for (const byte of utf8.encode(cliKey)) hash = Math.imul(hash ^ byte, 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) % AWAITING_REPORT_SHARDS;
};

/**
 * The `awaiting-report` bucket of a recipient accepted at `at` (UTC ISO 8601):
 * `<YYYY-MM-DDTHH>#<shard of its cliKey>`.
 */
export const awaitingReportBucket = (at: string, cliKey: string): string =>
  `${at.slice(0, 13)}#${awaitingReportShard(cliKey)}`;

/**
 * Every bucket an entry accepted in `hour` (`YYYY-MM-DDTHH`) may be in: its shards, then the
 * unsharded `<hour>` bucket that earlier releases wrote.
 *
 * The unsharded bucket is read only for entries written before a deployment upgraded: it can go
 * (with this comment) once every deployment has run a release with shards for longer than its
 * reconcile horizon (`RECONCILE_HORIZON_HOURS`: 96 h by default, at most 90 days), since
 * reconcile-status never looks at older entries.
 */
export const awaitingReportBuckets = (hour: string): readonly string[] => [
  ...Array.from({ length: AWAITING_REPORT_SHARDS }, (_, shard) => `${hour}#${shard}`),
  hour,
];

/**
 * The `awaiting-report` bucket of unknown outcomes: one partition, sorted by the attempt's time.
 * Unknown outcomes are rare (a lost answer on a message's last delivery), so one
 * partition holds them all, and `reconcile-status` finds them without reading the hourly buckets.
 * Not sharded: an entry is written only when a message's last delivery (after about 8 minutes of
 * backoff) still has no usable answer, and leaves at the next reconcile run (every 15 minutes,
 * `unknownAfterMinutes` 2), so normal sending puts next to nothing on this key. Only a gateway
 * failing every call quickly (an HTTP 5xx) for longer than the whole retry schedule, while more
 * than 1,000 recipients/s are queued, could fill it: the SDK then retries the throttled write, and
 * one that still fails leaves its message to the DLQ like any failed write, its claims held (a
 * redrive's resend is answered as a duplicate). That is an outage to alarm on, not a ceiling of
 * sending; sharding it would cost every run 16 queries and the oldest-first order of this list.
 */
export const UNKNOWN_OUTCOME_BUCKET = 'UNKNOWN';

/** Reports, inbound messages, send records, attachments and quarantined bodies. */
export const EVENT_TABLE: TableDefinition = {
  name: 'event-table',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expiresAt',
  stream: true,
  indexes: [AWAITING_REPORT_INDEX],
};

/**
 * The state-table keys of `publish-events`' markers (events/publish.ts) all start with this; its
 * IAM grant is limited to them.
 */
export const PUBLISH_KEY_PREFIX = KEY_PREFIX.publish;

/** Gateway token, rate-limit bucket and leases; never streamed. */
export const STATE_TABLE: TableDefinition = {
  name: 'state-table',
  partitionKey: 'pk',
  timeToLiveAttribute: 'expiresAt',
  stream: false,
};
