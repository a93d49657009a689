/**
 * The one home of the tables' key layout and of the events' idempotency keys: every `pk`/`sk` the
 * bridge writes or looks for, and every `metadata.idempotencyKey` (whose hash is `metadata.id`),
 * is built and parsed here. Each part is escaped before it is joined, so a key is an injective
 * encoding of its parts: docs/architecture.md, "Keys".
 */

/** The separator between a key's prefix and its parts, and between table-key parts. */
const TABLE_SEPARATOR = '#';
/** The separator of an idempotency key's parts. */
const IDEMPOTENCY_SEPARATOR = ':';
/** How an absent optional part is spelled. */
const ABSENT = '-';

const ESCAPES: Readonly<Record<string, string>> = { '%': '%25', '#': '%23', ':': '%3A' };

/** Escapes one part: the encoding never yields `#` or `:`, and is injective. */
export const encodeKeyPart = (part: string): string =>
  part.replace(
    /[%#:]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) =>
      c.length === 1 && c in ESCAPES
        ? (ESCAPES[c] as string)
        : `%u${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** Escapes a part that may be absent (`null`): `-` for absent, `%2D` for the string `-`. */
export const encodeOptionalKeyPart = (part: string | null): string =>
  part === null ? ABSENT : part === ABSENT ? '%2D' : encodeKeyPart(part);

/** Thrown for a key that is not one this module builds. */
export class KeyFormatError extends Error {
  override readonly name = 'KeyFormatError';
}

/** The part {@link encodeKeyPart} encoded. */
export const decodeKeyPart = (encoded: string): string =>
  encoded.replace(/%(?:u([0-9A-F]{4})|([0-9A-F]{2}))|%/g, (match, unit?: string, byte?: string) => {
    if (unit !== undefined) return String.fromCharCode(Number.parseInt(unit, 16));
    if (byte !== undefined) return String.fromCharCode(Number.parseInt(byte, 16));
    throw new KeyFormatError(`"${match}" at the end of a key part is not an escape`);
  });

/** A part as read back from a stored key: decoded, or `undefined` when this module did not encode it. */
const readKeyPart = (encoded: string): string | undefined => {
  try {
    return decodeKeyPart(encoded);
  } catch {
    return undefined;
  }
};

/** The optional part {@link encodeOptionalKeyPart} encoded. */
export const decodeOptionalKeyPart = (encoded: string): string | null =>
  encoded === ABSENT ? null : decodeKeyPart(encoded);

const tableKey = (prefix: string, ...parts: string[]): string =>
  [prefix, ...parts].join(TABLE_SEPARATOR);

/** The parts of a key built by {@link tableKey} with this prefix, still encoded. */
const partsOf = (prefix: string, key: string, count: number): string[] | undefined => {
  if (!key.startsWith(`${prefix}${TABLE_SEPARATOR}`)) return undefined;
  const parts = key.slice(prefix.length + 1).split(TABLE_SEPARATOR);
  return parts.length === count ? parts : undefined;
};

/** What each kind of key starts with: for `begins_with` queries and for telling items apart. */
export const KEY_PREFIX = {
  send: 'SEND#',
  sendRejected: 'SENDREJECTED#',
  report: 'REPORT#',
  result: 'RESULT#',
  mo: 'MO#',
  attachment: 'ATTACHMENT#',
  quarantine: 'QUARANTINE#',
  unrecognised: 'UNRECOGNISED#',
  status: 'STATUS#',
  statistics: 'STATISTICS#',
  rate: 'RATE#',
  lease: 'LEASE#',
  publish: 'PUBLISH#',
} as const;

/** The fixed sort keys. */
export const SORT_KEY = {
  /** A message's send record, in its smallest cliKey's partition. */
  sendRecord: 'MESSAGE',
  /** A recipient's outcome event ("Message Accepted", "Rejected", "Scheduled", "Outcome Unknown"). */
  outcome: 'OUTCOME',
  /** A recipient whose outcome the sender could not learn. */
  unknown: 'UNKNOWN',
  /** An inbound message. */
  mo: 'MO',
  /** A rejected send-queue message. */
  rejected: 'REJECTED',
  /** A "Message Status Unavailable" event. */
  unavailable: 'UNAVAILABLE',
} as const;

/** The event table's keys, one builder per kind of item. */
/** What identifies one messenger statistics item: channel, statistic, send date, day, part. */
type MessengerStatisticsParts = [
  msgrChId: string,
  statistic: string,
  sendDate: string,
  elapsedDay: number,
  part: number,
];

/** The parts after the channel, escaped (the day and the part are numbers). */
const messengerStatisticsSuffix = ([statistic, sendDate, elapsedDay, part]: [
  string,
  string,
  number,
  number,
]): string[] => [
  encodeKeyPart(statistic),
  encodeKeyPart(sendDate),
  String(elapsedDay),
  String(part),
];

export const eventKeys = {
  /** The partition of a recipient: its outcome, its unknown marker, maybe its message's record. */
  send: (cliKey: string) => tableKey('SEND', encodeKeyPart(cliKey)),
  sendRejected: (messageId: string) => ({
    pk: tableKey('SENDREJECTED', encodeKeyPart(messageId)),
    sk: SORT_KEY.rejected,
  }),
  /**
   * In a cliKey's partition, where a rejected queue message that named the cliKey is found:
   * `msgbridge trace CLIKEY` and the console follow it to the message's "Send Rejected".
   */
  sendRejectedPointer: (cliKey: string, messageId: string) => ({
    pk: tableKey('SEND', encodeKeyPart(cliKey)),
    sk: tableKey('REJECTED', encodeKeyPart(messageId)),
  }),
  /** The partition of a message's reports. */
  report: (msgKey: string) => tableKey('REPORT', encodeKeyPart(msgKey)),
  /** One report of a message: its result and the channel it came by. */
  result: (resultCode: string, ch: string | null) =>
    tableKey('RESULT', encodeKeyPart(resultCode), encodeOptionalKeyPart(ch)),
  /** The partition of an inbound message and its attachments. */
  mo: (moKey: string) => tableKey('MO', encodeKeyPart(moKey)),
  /** An attachment's "stored" event, or its "lost" one. */
  attachment: (index: number, lost = false) =>
    lost ? tableKey('ATTACHMENT', String(index), 'LOST') : tableKey('ATTACHMENT', String(index)),
  quarantine: (rawSha256: string, kind: string, bodySha256: string, index: number | null) => ({
    pk: tableKey('QUARANTINE', encodeKeyPart(rawSha256)),
    sk: tableKey(
      encodeKeyPart(kind),
      encodeKeyPart(bodySha256),
      index === null ? 'body' : String(index),
    ),
  }),
  unrecognised: (bodySha256: string, kind: string) => ({
    pk: tableKey('UNRECOGNISED', encodeKeyPart(bodySha256)),
    sk: kind,
  }),
  statusUnavailable: (cliKey: string) => ({
    pk: tableKey('STATUS', encodeKeyPart(cliKey)),
    sk: SORT_KEY.unavailable,
  }),
  trackingUrlStatistics: (urlId: string, date: string) => ({
    pk: tableKey('STATISTICS', 'tracking-url', encodeKeyPart(urlId)),
    sk: date,
  }),
  messengerStatistics: (...[msgrChId, ...rest]: MessengerStatisticsParts) => ({
    pk: tableKey('STATISTICS', 'messenger', encodeKeyPart(msgrChId)),
    sk: messengerStatisticsSuffix(rest).join(TABLE_SEPARATOR),
  }),
} as const;

/** What a partition key of the event table names, with its part decoded. */
export type ParsedPartitionKey =
  | { readonly kind: 'send'; readonly cliKey: string }
  | { readonly kind: 'report'; readonly msgKey: string }
  | { readonly kind: 'mo'; readonly moKey: string }
  | { readonly kind: 'quarantine' | 'unrecognised'; readonly sha256: string }
  | { readonly kind: 'status'; readonly cliKey: string }
  | { readonly kind: 'sendRejected'; readonly messageId: string }
  | { readonly kind: 'other'; readonly pk: string };

const PARTITIONS = [
  ['SEND', 'send', 'cliKey'],
  ['REPORT', 'report', 'msgKey'],
  ['MO', 'mo', 'moKey'],
  ['QUARANTINE', 'quarantine', 'sha256'],
  ['UNRECOGNISED', 'unrecognised', 'sha256'],
  ['STATUS', 'status', 'cliKey'],
  ['SENDREJECTED', 'sendRejected', 'messageId'],
] as const;

/** Reads a partition key of the event table; one this layout does not know is `other`. */
export const parsePartitionKey = (pk: string): ParsedPartitionKey => {
  for (const [prefix, kind, field] of PARTITIONS) {
    const [part] = partsOf(prefix, pk, 1) ?? [];
    const value = part === undefined ? undefined : readKeyPart(part);
    if (value !== undefined) return { kind, [field]: value } as ParsedPartitionKey;
  }
  return { kind: 'other', pk };
};

/** Reads a report's sort key: its result code and channel, or `undefined` for another item. */
export const parseResultKey = (
  sk: string,
): { readonly resultCode: string; readonly ch: string | null } | undefined => {
  const [code, ch] = partsOf('RESULT', sk, 2) ?? [];
  const resultCode = code === undefined ? undefined : readKeyPart(code);
  const channel = ch === undefined ? undefined : ch === ABSENT ? null : readKeyPart(ch);
  if (resultCode === undefined || channel === undefined) return undefined;
  return { resultCode, ch: channel };
};

/** The SQS message id a {@link eventKeys.sendRejectedPointer} names, or `undefined` for another item. */
export const parseRejectedPointerKey = (sk: string): string | undefined => {
  const [part] = partsOf('REJECTED', sk, 1) ?? [];
  return part === undefined ? undefined : readKeyPart(part);
};

/** Reads an attachment's sort key, or `undefined` for another item. */
export const parseAttachmentKey = (
  sk: string,
): { readonly index: number; readonly lost: boolean } | undefined => {
  const parts = sk.startsWith(KEY_PREFIX.attachment)
    ? sk.slice(KEY_PREFIX.attachment.length).split(TABLE_SEPARATOR)
    : [];
  const [index, lost] = parts;
  if (index === undefined || !/^\d+$/.test(index) || parts.length > 2) return undefined;
  if (lost !== undefined && lost !== 'LOST') return undefined;
  return { index: Number(index), lost: lost === 'LOST' };
};

/** The state table's keys. */
export const stateKeys = {
  /** The one gateway token item. */
  token: 'TOKEN#gateway',
  /** The limiter's counter of one second (and shard). */
  rate: (window: number, shard?: number) =>
    shard === undefined
      ? tableKey('RATE', String(window))
      : tableKey('RATE', String(window), String(shard)),
  lease: (name: string) => tableKey('LEASE', encodeKeyPart(name)),
  /** The marker of an attachment waiting for its download. */
  pendingAttachment: (moKey: string, index: number) =>
    tableKey('ATTACHMENT', encodeKeyPart(moKey), String(index)),
} as const;

/** Reads a limiter counter's key: its second and shard, or `undefined` for another item. */
export const parseRateKey = (
  pk: string,
): { readonly window: number; readonly shard: number | undefined } | undefined => {
  const parts = pk.startsWith(KEY_PREFIX.rate)
    ? pk.slice(KEY_PREFIX.rate.length).split(TABLE_SEPARATOR)
    : [];
  const [window, shard] = parts;
  if (window === undefined || parts.length > 2 || !/^\d+$/.test(window)) return undefined;
  if (shard !== undefined && !/^\d+$/.test(shard)) return undefined;
  return { window: Number(window), shard: shard === undefined ? undefined : Number(shard) };
};

/** Reads a pending attachment's marker key, or `undefined` for another item. */
export const parsePendingAttachmentKey = (
  pk: string,
): { readonly moKey: string; readonly index: number } | undefined => {
  const parts = partsOf('ATTACHMENT', pk, 2);
  const [encodedMoKey, index] = parts ?? [];
  const moKey = encodedMoKey === undefined ? undefined : readKeyPart(encodedMoKey);
  if (moKey === undefined || index === undefined || !/^\d+$/.test(index)) return undefined;
  return { moKey, index: Number(index) };
};

const idempotencyKey = (prefix: string, ...parts: string[]): string =>
  [prefix, ...parts].join(IDEMPOTENCY_SEPARATOR);

/**
 * What makes each event unique (`metadata.idempotencyKey`; `metadata.id` is its hash). Parts are
 * escaped as in the table keys, so two different events never share one.
 */
export const idempotencyKeys = {
  report: (msgKey: string, resultCode: string, ch: string | null) =>
    idempotencyKey(
      'report',
      encodeKeyPart(msgKey),
      encodeKeyPart(resultCode),
      encodeOptionalKeyPart(ch),
    ),
  mo: (moKey: string) => idempotencyKey('mo', encodeKeyPart(moKey)),
  send: (cliKey: string) => idempotencyKey('send', encodeKeyPart(cliKey)),
  sendRejected: (messageId: string, bodySha256: string) =>
    idempotencyKey('send-rejected', encodeKeyPart(messageId), encodeKeyPart(bodySha256)),
  statusUnavailable: (cliKey: string) =>
    idempotencyKey('status-unavailable', encodeKeyPart(cliKey)),
  attachment: (moKey: string, index: number) =>
    idempotencyKey('attachment', encodeKeyPart(moKey), String(index)),
  attachmentLost: (moKey: string, index: number) =>
    idempotencyKey('attachment-lost', encodeKeyPart(moKey), String(index)),
  quarantine: (kind: string, bodySha256: string, index: number | null, rawSha256: string) =>
    idempotencyKey(
      'quarantine',
      encodeKeyPart(kind),
      encodeKeyPart(bodySha256),
      index === null ? 'body' : String(index),
      encodeKeyPart(rawSha256),
    ),
  unrecognised: (kind: string, bodySha256: string) =>
    idempotencyKey('unrecognised', encodeKeyPart(kind), encodeKeyPart(bodySha256)),
  trackingUrlStatistics: (urlId: string, date: string) =>
    idempotencyKey('statistics', 'tracking-url', encodeKeyPart(urlId), encodeKeyPart(date)),
  messengerStatistics: (...[msgrChId, ...rest]: MessengerStatisticsParts) =>
    idempotencyKey(
      'statistics',
      'messenger',
      encodeKeyPart(msgrChId),
      ...messengerStatisticsSuffix(rest),
    ),
} as const;

/** The parts of an idempotency key, decoded (the first is its kind). */
export const parseIdempotencyKey = (key: string): string[] =>
  key.split(IDEMPOTENCY_SEPARATOR).map((part, index) => (index === 0 ? part : decodeKeyPart(part)));
