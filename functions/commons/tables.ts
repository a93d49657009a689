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
 * Sends whose outcome is unknown (a last delivery without an answer), by the time of the attempt:
 * only the `UNKNOWN` items the sender writes carry these attributes, so the index stays small.
 * `reconcile-status` reads it to ask the gateway what became of them (see
 * {@link UNKNOWN_OUTCOME_BUCKET}); accepted recipients waiting for their report are on the
 * report-check queue instead.
 */
export const AWAITING_REPORT_INDEX = {
  name: 'awaiting-report',
  partitionKey: 'awaitingReportBucket',
  sortKey: 'acceptedAt',
} as const;

/**
 * The `awaiting-report` bucket of unknown outcomes: one partition, sorted by the attempt's time.
 * Unknown outcomes are rare (a lost answer on a message's last delivery), so one partition holds
 * them all. Not sharded: an entry is written only when a message's last delivery (after about 8 minutes of
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
