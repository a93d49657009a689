import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';
import {
  eventKeys,
  KEY_PREFIX,
  parsePartitionKey,
  parseRejectedPointerKey,
  parseResultKey,
  SORT_KEY,
} from '../functions/commons/table-keys.ts';
import { storedDetail } from '../functions/event-table/stored-detail.ts';
import { ACCEPTED_PREFIX, MAYBE_SENT_UNTIL } from '../functions/send-records/send-record.ts';
import type { PhoneMask } from './phone-search.ts';

/*
 * The trace of one message (`msgbridge trace KEY`, the console's timeline): every item the event table holds for one message, in time order. The
 * table is keyed per message (SEND#<cliKey>, REPORT#<msgKey>, MO#<moKey>), so a trace is a few
 * Queries by partition key; only --scan reads the whole table (quarantined and unrecognised
 * bodies are keyed by their hash, and a msgKey without a report names no cliKey).
 */

/** One stored item of a message, as printed: phone numbers masked, never the raw payload. */
export interface TraceEntry {
  readonly pk: string;
  readonly sk: string;
  /** The item's own time (received, accepted, attempted), ISO 8601; undefined when it has none. */
  readonly at: string | undefined;
  readonly type: string | undefined;
  /** The event's id (`metadata.id`, stable across replays); undefined for items without an event. */
  readonly eventId?: string | undefined;
  /** Where the item came from (`metadata.via`: webhook, polling, send-queue, status-query …). */
  readonly via?: string | undefined;
  readonly summary: string;
  /** The event's `data`, phone numbers masked (send records: their attributes). */
  readonly data: unknown;
  /** The stored event's `metadata` (id, type, times, via …); undefined for items without an event. */
  readonly metadata?: unknown;
}

export interface Trace {
  readonly key: string;
  readonly cliKey: string | undefined;
  readonly msgKey: string | undefined;
  readonly moKey: string | undefined;
  readonly entries: readonly TraceEntry[];
}

type Item = Record<string, unknown>;

/** The items of every page of a Query or Scan; `page` asks for the one after `start`. */
const allPages = async (
  page: (
    start: Item | undefined,
  ) => Promise<{ readonly Items?: Item[]; readonly LastEvaluatedKey?: Item }>,
): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const answer = await page(start);
    items.push(...(answer.Items ?? []));
    start = answer.LastEvaluatedKey;
  } while (start);
  return items;
};

/** Every item of partition `pk` (Query, all pages). */
export const itemsOf = (
  documents: DynamoDBDocumentClient,
  table: string,
  pk: string,
): Promise<Item[]> =>
  allPages((start) =>
    documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    ),
  );

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const detailOf = (item: Item): { metadata?: Item; data?: Item } | undefined => {
  const raw = text(storedDetail(item));
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as { metadata?: Item; data?: Item };
  } catch {
    return undefined;
  }
};

/** The attributes that are bookkeeping, not what happened. */
const HIDDEN = new Set([
  'pk',
  'sk',
  'detail',
  'detailZ',
  'payload',
  'expiresAt',
  'eventId',
  'detailType',
]);

const summaryOf = (item: Item, data: Item | undefined): string => {
  const sk = String(item.sk);
  if (sk === SORT_KEY.sendRecord) {
    const accepted = Object.keys(acceptedMap(item)).length;
    const until = Number(item.claimedUntil);
    const claim =
      until === MAYBE_SENT_UNTIL
        ? `claim released by ${String(item.owner)}, marked as maybe sent`
        : until > 0
          ? `claimed by ${String(item.owner)} until ${new Date(until).toISOString()}`
          : `claim released by ${String(item.owner)}`;
    const of = typeof item.recipients === 'number' ? ` of ${item.recipients}` : '';
    return `send record: ${accepted}${of} recipients accepted, ${claim}`;
  }
  if (sk === SORT_KEY.unknown)
    return `outcome unknown: ${text(item.code) ?? ''} ${text(item.message) ?? ''}`.trim();
  const rejectedBy = parseRejectedPointerKey(sk);
  if (rejectedBy !== undefined) return `named by rejected queue message ${rejectedBy}`;
  if (sk === SORT_KEY.rejected && Array.isArray(data?.problems)) {
    const [first] = data.problems as Array<{ path?: unknown; message?: unknown }>;
    const count = typeof data.problemCount === 'number' ? data.problemCount : data.problems.length;
    return `queue message ${String(data.sqsMessageId)} rejected, ${count} ${count === 1 ? 'problem' : 'problems'}${first ? `: ${String(first.path)}: ${String(first.message)}` : ''}`;
  }
  const parts = [
    data?.resultCode === undefined ? undefined : `result ${String(data.resultCode)}`,
    text(data?.resultCodeDesc),
    text(data?.code) === undefined ? undefined : `code ${String(data?.code)}`,
    text(data?.channel) ?? text(data?.ch),
    text(data?.msgKey) === undefined ? undefined : `msgKey ${String(data?.msgKey)}`,
    text(data?.reason),
  ].filter((part): part is string => part !== undefined);
  return parts.join(', ');
};

/** An event-table item as a {@link TraceEntry}. */
export const toEntry = (item: Item, mask: PhoneMask = maskPhonesDeep): TraceEntry => {
  const detail = detailOf(item);
  const data = detail?.data;
  const own = Object.fromEntries(Object.entries(item).filter(([key]) => !HIDDEN.has(key)));
  const at =
    text(item.receivedAt) ??
    text(item.acceptedAt) ??
    text(item.attemptedAt) ??
    text(detail?.metadata?.receivedAt);
  return {
    pk: String(item.pk),
    sk: String(item.sk),
    at,
    // An acceptance stored without its event (`sending.acceptedEvents` off) says so.
    type:
      text(item.detailType) ??
      (item.outcome === 'accepted' ? 'Message Accepted (not published)' : undefined),
    eventId: text(item.eventId),
    via: text(detail?.metadata?.via),
    summary: summaryOf(item, data ?? own),
    data: mask(data ?? own),
    ...(detail?.metadata === undefined ? {} : { metadata: mask(detail.metadata) }),
  };
};

/** The acceptances a send record (`MESSAGE` item) lists: cliKey → `{ m: msgKey, t, d }`. */
const acceptedMap = (item: Item): Record<string, Item> =>
  Object.fromEntries(
    Object.entries(item).flatMap(([name, value]) =>
      name.startsWith(ACCEPTED_PREFIX) && value !== null && typeof value === 'object'
        ? [[name.slice(ACCEPTED_PREFIX.length), value as Item]]
        : [],
    ),
  );

/**
 * A cliKey's acceptance as its message's send record lists it, shown like the "Message Accepted"
 * event a deployment with `sending.acceptedEvents` on would have published.
 */
const recordAcceptance = (item: Item, cliKey: string): TraceEntry | undefined => {
  const entry = acceptedMap(item)[cliKey];
  if (entry === undefined) return undefined;
  const at = typeof entry.t === 'number' ? new Date(entry.t * 1000).toISOString() : undefined;
  const msgKey = text(entry.m);
  return {
    pk: String(item.pk),
    sk: `${String(item.sk)} accepted.${cliKey}`,
    at,
    type: 'Message Accepted (not published)',
    summary: [
      text(item.channel),
      msgKey === undefined ? undefined : `msgKey ${msgKey}`,
      entry.d === true ? 'already accepted' : undefined,
    ]
      .filter((part): part is string => part !== undefined)
      .join(', '),
    data: {
      cliKey,
      ...(msgKey === undefined ? {} : { msgKey }),
      alreadyAccepted: entry.d === true,
      acceptedAt: at,
      channel: item.channel,
      sqsMessageId: item.sqsMessageId,
    },
  };
};

/**
 * What the gateway answered a send, by the event type of its outcome item: `scheduled`,
 * `rejected` or `accepted` (each kind of "Message Accepted"); undefined for any other type.
 */
export const gatewayAnswer = (
  type: string | undefined,
): 'scheduled' | 'rejected' | 'accepted' | undefined =>
  type === 'Message Scheduled'
    ? 'scheduled'
    : type === 'Message Rejected'
      ? 'rejected'
      : type?.startsWith('Message Accepted')
        ? 'accepted'
        : undefined;

/** In time order; items without a time (claims) after the timed ones, by key. */
export const byTime = (a: TraceEntry, b: TraceEntry): number => {
  if (a.at !== b.at) {
    if (a.at === undefined) return 1;
    if (b.at === undefined) return -1;
    return a.at < b.at ? -1 : 1;
  }
  return `${a.pk} ${a.sk}`.localeCompare(`${b.pk} ${b.sk}`);
};

const msgKeyOf = (items: readonly Item[], cliKey?: string): string | undefined => {
  for (const item of items) {
    const found =
      text(item.msgKey) ??
      text(detailOf(item)?.data?.msgKey) ??
      (cliKey === undefined ? undefined : text(acceptedMap(item)[cliKey]?.m));
    if (found) return found;
  }
  return undefined;
};

const cliKeyOf = (items: readonly Item[]): string | undefined => {
  for (const item of items) {
    const found = text(item.cliKey) ?? text(detailOf(item)?.data?.cliKey);
    if (found) return found;
  }
  return undefined;
};

/**
 * The scan behind --scan: send records carrying `msgKey` = KEY or listing KEY as an accepted
 * cliKey (a message's record is kept under its smallest cliKey only), and quarantined or
 * unrecognised bodies and rejected queue messages whose text contains KEY.
 */
const scanFor = (documents: DynamoDBDocumentClient, table: string, key: string): Promise<Item[]> =>
  allPages((start) =>
    documents.send(
      new ScanCommand({
        TableName: table,
        FilterExpression:
          '(begins_with(pk, :send) AND (msgKey = :key OR attribute_exists(#key))) OR ((begins_with(pk, :quarantine) OR begins_with(pk, :unrecognised) OR begins_with(pk, :rejected)) AND (contains(payload, :key) OR contains(detail, :key)))',
        ExpressionAttributeNames: { '#key': `${ACCEPTED_PREFIX}${key}` },
        ExpressionAttributeValues: {
          ':send': KEY_PREFIX.send,
          ':quarantine': KEY_PREFIX.quarantine,
          ':unrecognised': KEY_PREFIX.unrecognised,
          ':rejected': KEY_PREFIX.sendRejected,
          ':key': key,
        },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    ),
  );

/**
 * Items as entries in time order, with `cliKey`'s acceptance as its message's send record lists
 * it, unless an event item (`OUTCOME`) already tells it.
 */
export const entriesOf = (
  items: readonly Item[],
  cliKey: string | undefined,
  mask: PhoneMask = maskPhonesDeep,
): TraceEntry[] => {
  const published =
    cliKey !== undefined &&
    items.some((item) => item.pk === eventKeys.send(cliKey) && item.sk === SORT_KEY.outcome);
  const acceptances =
    cliKey === undefined || published
      ? []
      : items.flatMap((item) => {
          const entry =
            item.sk === SORT_KEY.sendRecord ? recordAcceptance(item, cliKey) : undefined;
          return entry ? [entry] : [];
        });
  return [...items.map((item) => toEntry(item, mask)), ...acceptances].sort(byTime);
};

/**
 * Everything the event table holds for KEY (a cliKey, msgKey, moKey or the SQS message id of a
 * rejected queue message): its own partitions, the rejected queue messages that named a cliKey, the
 * reports of a cliKey's msgKey, the send records of a msgKey's cliKey (from the report, or with
 * `scan` from the table), and with `scan` quarantined bodies that name KEY.
 */
export const traceKey = async (
  documents: DynamoDBDocumentClient,
  table: string,
  key: string,
  options: {
    readonly scan?: boolean;
    /** How phone numbers are masked. @default every one */
    readonly mask?: PhoneMask;
  } = {},
): Promise<Trace> => {
  const read = (pk: string) => itemsOf(documents, table, pk);
  const [send, reports, mo, rejected] = await Promise.all([
    read(eventKeys.send(key)),
    read(eventKeys.report(key)),
    read(eventKeys.mo(key)),
    // KEY may be the SQS message id of a rejected queue message.
    read(eventKeys.sendRejected(key).pk),
  ]);
  const scanned = options.scan ? await scanFor(documents, table, key) : [];
  const sendByMsgKey = scanned.filter(
    (item) => parsePartitionKey(String(item.pk)).kind === 'send' && item.sk !== SORT_KEY.sendRecord,
  );
  const listedIn = scanned.filter(
    (item) => item.sk === SORT_KEY.sendRecord && key in acceptedMap(item),
  );
  let cliKey =
    send.length > 0 || listedIn.length > 0 ? key : (cliKeyOf(reports) ?? cliKeyOf(sendByMsgKey));
  let msgKey = reports.length > 0 ? key : msgKeyOf([...send, ...listedIn], key);
  const more: Item[] = [...scanned];
  if (send.length === 0 && cliKey !== undefined) more.push(...(await read(eventKeys.send(cliKey))));
  if (reports.length === 0 && msgKey !== undefined)
    more.push(...(await read(eventKeys.report(msgKey))));
  // The rejected queue messages that named the cliKey, by the pointers in its partition.
  const pointedTo = new Set(
    [...send, ...more].flatMap((item) => {
      const messageId = parseRejectedPointerKey(String(item.sk));
      return messageId === undefined ? [] : [messageId];
    }),
  );
  for (const messageId of pointedTo)
    more.push(...(await read(eventKeys.sendRejected(messageId).pk)));
  // A report's partition also holds guard items; only RESULT# items are reports.
  const all = [...send, ...reports, ...mo, ...rejected, ...more].filter(
    (item) =>
      parsePartitionKey(String(item.pk)).kind !== 'report' ||
      parseResultKey(String(item.sk)) !== undefined,
  );
  const unique = new Map(all.map((item) => [`${String(item.pk)}\u0000${String(item.sk)}`, item]));
  msgKey ??= msgKeyOf([...unique.values()], cliKey);
  cliKey ??= cliKeyOf([...unique.values()]);
  return {
    key,
    cliKey,
    msgKey,
    moKey: mo.length > 0 ? key : undefined,
    entries: entriesOf([...unique.values()], cliKey, options.mask),
  };
};
