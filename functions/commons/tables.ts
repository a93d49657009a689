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
 * Accepted sends still waiting for their delivery report, by the hour they were accepted: only
 * the `OUTCOME` items of accepted recipients carry these attributes, so the index stays small.
 * `reconcile-status` reads it to find recipients whose report is late.
 */
export const AWAITING_REPORT_INDEX = {
  name: 'awaiting-report',
  partitionKey: 'awaitingReportBucket',
  sortKey: 'acceptedAt',
} as const;

/**
 * The `awaiting-report` bucket of unknown outcomes: one partition, sorted by the attempt's time.
 * Unknown outcomes are rare (a lost answer on a message's last delivery), so one partition holds
 * them all, and `reconcile-status` finds them without reading the hourly buckets.
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
export const PUBLISH_KEY_PREFIX = 'PUBLISH#';

/** Gateway token, rate-limit bucket and leases; never streamed. */
export const STATE_TABLE: TableDefinition = {
  name: 'state-table',
  partitionKey: 'pk',
  timeToLiveAttribute: 'expiresAt',
  stream: false,
};
