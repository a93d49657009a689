import { createHash } from 'node:crypto';
import { eventKeys, SORT_KEY } from '../commons/table-keys.ts';
import type { SendMessage } from '../send-contract/queue-message.ts';
import type { SendRecordKey } from './ports.ts';

/*
 * The send record: one item per queue message in the event table, under the partition of the
 * message's smallest cliKey (`SEND#<cliKey>` / `MESSAGE`, beside that recipient's `OUTCOME` and
 * `UNKNOWN` items). It holds the claim of the attempt sending the message (owner, until when) and
 * the recipients the gateway accepted (msgKey, time, already accepted), and is what a redelivery
 * reads to skip them. One write claims the message, one more records what the attempt got and
 * gives the claim back: 0.2 write units per recipient for a 10-recipient message, where a claim
 * item and an outcome item per recipient cost 2 (docs/performance.md).
 *
 * Why the smallest cliKey: the key must follow from the message alone, be the same for every
 * delivery of it (and for a producer's second copy of it), and be where `msgbridge trace` looks
 * for that cliKey. Two different messages that share their smallest cliKey share a record, and
 * each then skips what the other had accepted: right, since a cliKey is one send. Two messages
 * that share only other cliKeys do not see each other's claims (a producer error); the gateway's
 * duplicate check still keeps such a cliKey from being accepted twice (field notes).
 */

export const SEND_RECORD_SK = SORT_KEY.sendRecord;

/**
 * The record lists each accepted recipient as an attribute of its own, `accepted#<cliKey>` =
 * `{ t: epoch seconds, m: msgKey, d: true when already accepted }`: one `SET` per recipient, with
 * no map that must exist first (and no empty map, which DynamoDB Local's stream cannot carry).
 */
export const ACCEPTED_PREFIX = 'accepted#';

/**
 * The record's `claimedUntil` once its claim is given back marked as maybe sent: a time long past
 * (so the next claim is at once) and never 0 (so it answers `taken-over`): a recipient the claim
 * left undecided may be the gateway's already (`SendStore.release`).
 */
export const MAYBE_SENT_UNTIL = 1;

/** `claimedUntil` of a claim given back: 0, or {@link MAYBE_SENT_UNTIL}. */
export const givenBackUntil = (maybeSent = false): number => (maybeSent ? MAYBE_SENT_UNTIL : 0);

/** The send record of a message with these recipients' cliKeys (at least one). */
export const sendRecordKey = (cliKeys: readonly string[]): SendRecordKey => {
  let smallest: string | undefined;
  for (const cliKey of cliKeys) if (smallest === undefined || cliKey < smallest) smallest = cliKey;
  if (smallest === undefined) throw new RangeError('a send record needs at least one cliKey');
  return { pk: eventKeys.send(smallest), sk: SEND_RECORD_SK };
};

/** JSON with every object's keys in order, so that two spellings of one value read the same. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      )
      .join(',')}}`;
  return JSON.stringify(value);
};

/**
 * The content of a validated message, as the send record keeps it: the first 128 bits of the
 * SHA-256 of its channel
 * and body (recipients in cliKey order, keys in order), base64url, 22 characters, so that the
 * record of a 10-recipient message stays within one write unit. A producer's retry of the same message
 * has the same fingerprint however its JSON is spelt; a message reusing a cliKey with another
 * phone, text or option has another, and is refused rather than merged into the first.
 */
export const messageFingerprint = (message: SendMessage): string => {
  const body = message.body as Record<string, unknown>;
  const recipients = Array.isArray(body.recvInfoLst)
    ? [...(body.recvInfoLst as Array<{ cliKey: string }>)].sort((a, b) =>
        a.cliKey < b.cliKey ? -1 : a.cliKey > b.cliKey ? 1 : 0,
      )
    : undefined;
  const content = {
    channel: message.channel,
    body: recipients ? { ...body, recvInfoLst: recipients } : body,
  };
  return createHash('sha256')
    .update(canonicalJson(content), 'utf8')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
};
