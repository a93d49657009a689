import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventKeys, SORT_KEY } from '../functions/commons/table-keys.ts';
import { ACCEPTED_PREFIX, sendRecordKey } from '../functions/send-records/send-record.ts';
import { itemsOf } from './trace.ts';

/**
 * The cliKeys of `messages` (each message's recipients' cliKeys) that the sender has already
 * decided and so skips when the message is queued again, by the sender's own rule
 * (send-use-case.ts): once the message has a send record (`MESSAGE`, in its smallest cliKey's
 * partition), the cliKeys it lists as accepted and those with an outcome item of their own
 * (`OUTCOME`: rejected, scheduled, resolved). A producer who queues the same file twice sees
 * nothing happen; this says why. Reads by key only (DynamoDB Query): one per message, and for a
 * message sent before, one more per cliKey its record does not list as accepted.
 */
export const alreadySentCliKeys = async (
  documents: DynamoDBDocumentClient,
  table: string,
  messages: readonly (readonly string[])[],
): Promise<string[]> => {
  const perMessage = await Promise.all(
    messages.map(async (cliKeys) => {
      if (cliKeys.length === 0) return [];
      const recordPk = sendRecordKey(cliKeys).pk;
      const ownItems = await itemsOf(documents, table, recordPk);
      const record = ownItems.find((item) => item.sk === SORT_KEY.sendRecord);
      // Without a record the sender claims the message afresh and sends every recipient.
      if (record === undefined) return [];
      const decided = async (cliKey: string): Promise<boolean> => {
        if (`${ACCEPTED_PREFIX}${cliKey}` in record) return true;
        const pk = eventKeys.send(cliKey);
        const items = pk === recordPk ? ownItems : await itemsOf(documents, table, pk);
        return items.some((item) => item.sk === SORT_KEY.outcome);
      };
      const found = await Promise.all(cliKeys.map(decided));
      return cliKeys.filter((_, index) => found[index] === true);
    }),
  );
  return perMessage.flat();
};
