import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  MESSAGE_STATUSES,
  type MessageStatusName,
  reportedStatus,
  statusAfter,
} from '../functions/catalogue/message-status.ts';
import {
  KEY_PREFIX,
  parsePartitionKey,
  parseResultKey,
  SORT_KEY,
} from '../functions/commons/table-keys.ts';
import { ACCEPTED_PREFIX } from '../functions/send-records/send-record.ts';
import { scanKeyPrefixes } from './event-scan.ts';
import { gatewayAnswer, type TraceEntry, toEntry } from './trace.ts';

/*
 * The latest messages and inbound messages, one row per message, newest first (the console's
 * landing page). The event table is keyed per message and has no index by time (its one index
 * holds only the sends still waiting for a report), so "the latest" is found by a Scan that reads
 * the table once, stopping after `maxItems`; each page of the list is a Scan of its own, so a
 * page costs what the table's size costs (docs/console.md, "Pages"). Rows are made from the same
 * entries `msgbridge trace` reads, phone numbers masked.
 */

/** What a row's message came to, as its stored items tell it. */
export const LISTED_STATUSES = [
  'sending',
  'accepted',
  'scheduled',
  'unknown',
  'rejected',
  'unavailable',
  'uncertain',
  'failed',
  'delivered',
  'received',
] as const;
export type ListedStatus = (typeof LISTED_STATUSES)[number];

/**
 * How a status is outranked by another of the same message: what the sender learnt comes before
 * what a report says, and the reports' statuses keep their own order (message-status.ts).
 */
const RANK: Readonly<Record<ListedStatus, number>> = {
  sending: 0,
  unknown: 1,
  scheduled: 2,
  accepted: 3,
  rejected: 4,
  unavailable: 5,
  uncertain: 6,
  failed: 7,
  delivered: 8,
  received: 9,
};

export type ListedKind = 'cliKey' | 'msgKey' | 'moKey' | 'sqsMessageId';

/** One message in the list. */
export interface ListedMessage {
  /** What `key` is: a sent recipient's cliKey (or a report's msgKey when no cliKey is known), an inbound message's moKey, a rejected queue message's SQS id. */
  readonly kind: ListedKind;
  readonly key: string;
  readonly msgKey: string | undefined;
  readonly channel: string | undefined;
  readonly status: ListedStatus;
  /** Its latest item's time, ISO 8601: the list's order. */
  readonly at: string;
  /** Its latest item's detail-type (or what it was, for a send record). */
  readonly latest: string | undefined;
}

/** One thing an item says of a row. */
interface Fact {
  kind: ListedKind;
  key: string;
  at: string | undefined;
  type: string | undefined;
  status: ListedStatus | undefined;
  msgKey?: string | undefined;
  channel?: string | undefined;
  /** A report's channel (the one it was delivered on), used when the send's is not known. */
  reportChannel?: string | undefined;
}

type Data = Record<string, unknown>;

const dataOf = (entry: TraceEntry): Data =>
  entry.data !== null && typeof entry.data === 'object' ? (entry.data as Data) : {};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const isoOfMs = (ms: unknown): string | undefined => {
  const value = Number(ms);
  return Number.isFinite(value) && value > 0 ? new Date(value).toISOString() : undefined;
};

const isMessageStatus = (value: unknown): value is MessageStatusName =>
  typeof value === 'string' && (MESSAGE_STATUSES as readonly string[]).includes(value);

/** What a report says of its message: its own result, or the status it was stored with if higher. */
const reportStatus = (entry: TraceEntry, data: Data): MessageStatusName | undefined => {
  const code = text(data.resultCode) ?? parseResultKey(entry.sk)?.resultCode;
  const own = code === undefined ? undefined : reportedStatus(code);
  const stored = isMessageStatus(data.messageStatus) ? data.messageStatus : undefined;
  if (own === undefined) return stored;
  return stored === undefined ? own : statusAfter(stored, own);
};

const factsOf = (entry: TraceEntry): Fact[] => {
  const data = dataOf(entry);
  const partition = parsePartitionKey(entry.pk);
  const base = { at: entry.at, type: entry.type };
  switch (partition.kind) {
    case 'send': {
      const { cliKey } = partition;
      if (entry.sk === SORT_KEY.sendRecord) {
        // The record lists every recipient the gateway accepted, under the smallest cliKey.
        const accepted = Object.entries(data).flatMap(([name, value]): Fact[] => {
          if (!name.startsWith(ACCEPTED_PREFIX) || value === null || typeof value !== 'object')
            return [];
          const { t, m } = value as Data;
          return [
            {
              kind: 'cliKey',
              key: name.slice(ACCEPTED_PREFIX.length),
              at: isoOfMs(Number(t) * 1000),
              type: 'Message Accepted',
              status: 'accepted',
              msgKey: text(m),
              channel: text(data.channel),
            },
          ];
        });
        return [
          ...accepted,
          {
            kind: 'cliKey',
            key: cliKey,
            at: isoOfMs(data.claimedAt) ?? isoOfMs(data.queuedAt),
            type: undefined,
            status: 'sending',
            channel: text(data.channel),
          },
        ];
      }
      if (entry.sk === SORT_KEY.unknown)
        return [{ ...base, kind: 'cliKey', key: cliKey, status: 'unknown' }];
      if (entry.sk === SORT_KEY.outcome) {
        return [
          {
            ...base,
            kind: 'cliKey',
            key: cliKey,
            status: gatewayAnswer(entry.type),
            msgKey: text(data.msgKey),
            channel: text(data.channel),
          },
        ];
      }
      // A pointer to a rejected queue message that named the cliKey: that message is its own row.
      return [];
    }
    case 'report': {
      if (parseResultKey(entry.sk) === undefined) return [];
      const cliKey = text(data.cliKey);
      return [
        {
          ...base,
          kind: cliKey === undefined ? 'msgKey' : 'cliKey',
          key: cliKey ?? partition.msgKey,
          status: reportStatus(entry, data),
          msgKey: partition.msgKey,
          reportChannel: text(data.channel),
        },
      ];
    }
    case 'mo':
      return [
        {
          ...base,
          kind: 'moKey',
          key: partition.moKey,
          // An attachment keeps its message's status; its time counts as the message's latest.
          status: entry.sk === SORT_KEY.mo ? 'received' : undefined,
          channel: entry.sk === SORT_KEY.mo ? text(data.type) : undefined,
        },
      ];
    case 'sendRejected':
      return [
        {
          ...base,
          kind: 'sqsMessageId',
          key: partition.messageId,
          status: 'rejected',
          channel: text(data.channel),
        },
      ];
    case 'status':
      return entry.sk === SORT_KEY.unavailable
        ? [
            {
              ...base,
              kind: 'cliKey',
              key: partition.cliKey,
              status: 'unavailable',
              msgKey: text(data.msgKey),
            },
          ]
        : [];
    default:
      return [];
  }
};

/** The statuses of a message's reports, folded as publish-events folds them. */
const foldStatus = (current: ListedStatus | undefined, next: ListedStatus): ListedStatus => {
  if (current === undefined) return next;
  if (isMessageStatus(current) && isMessageStatus(next)) return statusAfter(current, next);
  return RANK[next] > RANK[current] ? next : current;
};

/**
 * One row per message from its stored entries (any order), newest first: by its latest item's
 * time, then by key. A report that names no cliKey joins the send whose acceptance gave its msgKey.
 */
export const messagesOf = (entries: Iterable<TraceEntry>): ListedMessage[] =>
  rowsOf([...entries].flatMap(factsOf));

const rowsOf = (facts: readonly Fact[]): ListedMessage[] => {
  const cliKeyOfMsgKey = new Map<string, string>();
  for (const fact of facts)
    if (fact.kind === 'cliKey' && fact.msgKey !== undefined)
      cliKeyOfMsgKey.set(fact.msgKey, fact.key);
  const rows = new Map<
    string,
    {
      kind: ListedKind;
      key: string;
      msgKey?: string | undefined;
      channel?: string | undefined;
      reportChannel?: string | undefined;
      status?: ListedStatus | undefined;
      at?: string | undefined;
      latest?: string | undefined;
    }
  >();
  for (const fact of facts) {
    const joined =
      fact.kind === 'msgKey' && cliKeyOfMsgKey.has(fact.key)
        ? { kind: 'cliKey' as const, key: cliKeyOfMsgKey.get(fact.key) as string }
        : { kind: fact.kind, key: fact.key };
    const id = `${joined.kind}\u0000${joined.key}`;
    const row = rows.get(id) ?? { ...joined };
    rows.set(id, row);
    row.msgKey ??= fact.msgKey;
    row.channel ??= fact.channel;
    row.reportChannel ??= fact.reportChannel;
    if (fact.status !== undefined) row.status = foldStatus(row.status, fact.status);
    if (fact.at !== undefined && (row.at === undefined || fact.at > row.at)) {
      row.at = fact.at;
      row.latest = fact.type ?? row.latest;
    } else if (row.latest === undefined && fact.type !== undefined) row.latest = fact.type;
  }
  const listed = [...rows.values()].flatMap((row): ListedMessage[] =>
    // A row with no time (a send record written before it kept its times, and nothing else) or
    // nothing that says a status cannot be placed in the list: `msgbridge trace` still finds it.
    row.at === undefined || row.status === undefined
      ? []
      : [
          {
            kind: row.kind,
            key: row.key,
            msgKey: row.msgKey,
            channel: row.channel ?? row.reportChannel,
            status: row.status,
            at: row.at,
            latest: row.latest,
          },
        ],
  );
  return listed.sort(newestFirst);
};

const sortKeyOf = (row: Pick<ListedMessage, 'at' | 'kind' | 'key'>): string =>
  `${row.at}\u0000${row.kind}\u0000${row.key}`;

/** Newest first; rows of one instant by kind and key, descending, so that a cursor is exact. */
const newestFirst = (a: ListedMessage, b: ListedMessage): number => {
  const x = sortKeyOf(a);
  const y = sortKeyOf(b);
  return x === y ? 0 : x < y ? 1 : -1;
};

/** Where the next page starts: after the last row shown, as an opaque token for a URL. */
export const cursorAfter = (row: Pick<ListedMessage, 'at' | 'kind' | 'key'>): string =>
  Buffer.from(JSON.stringify([row.at, row.kind, row.key]), 'utf8').toString('base64url');

/** Thrown for a cursor that is not one {@link cursorAfter} made. */
export class BadCursorError extends Error {
  override readonly name = 'BadCursorError';
}

/** The row a cursor names, or {@link BadCursorError}. */
export const parseCursor = (cursor: string): Pick<ListedMessage, 'at' | 'kind' | 'key'> => {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadCursorError('the cursor is not one this list gave');
  }
  const kinds: readonly string[] = ['cliKey', 'msgKey', 'moKey', 'sqsMessageId'];
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    typeof parts[0] !== 'string' ||
    Number.isNaN(Date.parse(parts[0])) ||
    typeof parts[1] !== 'string' ||
    !kinds.includes(parts[1]) ||
    typeof parts[2] !== 'string'
  )
    throw new BadCursorError('the cursor is not one this list gave');
  return { at: parts[0], kind: parts[1] as ListedKind, key: parts[2] };
};

export interface MessagePage {
  readonly rows: readonly ListedMessage[];
  /** The cursor of the next page; undefined on the last. */
  readonly next: string | undefined;
}

/** One page of `rows` (newest first): those of `status`, after `cursor`, at most `size`. */
export const pageOf = (
  rows: readonly ListedMessage[],
  options: { readonly status?: ListedStatus; readonly cursor?: string; readonly size: number },
): MessagePage => {
  const after = options.cursor === undefined ? undefined : sortKeyOf(parseCursor(options.cursor));
  const matching = rows.filter(
    (row) =>
      (options.status === undefined || row.status === options.status) &&
      (after === undefined || sortKeyOf(row) < after),
  );
  const shown = matching.slice(0, options.size);
  const last = shown.at(-1);
  return {
    rows: shown,
    next: matching.length > shown.length && last !== undefined ? cursorAfter(last) : undefined,
  };
};

export interface LatestMessages {
  readonly rows: readonly ListedMessage[];
  /** Items read by the Scan. */
  readonly scanned: number;
  /** False when the Scan stopped at `maxItems`: the rows are of the items read only. */
  readonly complete: boolean;
}

/**
 * Every message of the event table, newest first, from one Scan of the items of sends, reports,
 * inbound messages, rejected queue messages and unavailable statuses; stops after `maxItems`.
 */
export const latestMessages = async (
  documents: DynamoDBDocumentClient,
  table: string,
  options: { readonly maxItems?: number } = {},
): Promise<LatestMessages> => {
  const maxItems = options.maxItems ?? 100_000;
  // What each item says, not the item: a row needs a few fields of each.
  const facts: Fact[] = [];
  const extent = await scanKeyPrefixes(
    documents,
    table,
    {
      send: KEY_PREFIX.send,
      report: KEY_PREFIX.report,
      mo: KEY_PREFIX.mo,
      rejected: KEY_PREFIX.sendRejected,
      status: KEY_PREFIX.status,
    },
    maxItems,
    (item) => facts.push(...factsOf(toEntry(item))),
  );
  return { rows: rowsOf(facts), ...extent };
};
