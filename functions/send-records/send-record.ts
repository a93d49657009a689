import { eventKeys, SORT_KEY } from '../commons/table-keys.ts';
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

/** The send record of a message with these recipients' cliKeys (at least one). */
export const sendRecordKey = (cliKeys: readonly string[]): SendRecordKey => {
  let smallest: string | undefined;
  for (const cliKey of cliKeys) if (smallest === undefined || cliKey < smallest) smallest = cliKey;
  if (smallest === undefined) throw new RangeError('a send record needs at least one cliKey');
  return { pk: eventKeys.send(smallest), sk: SEND_RECORD_SK };
};
