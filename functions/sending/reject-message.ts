import { createHash } from 'node:crypto';
import { ITEM_BUDGET_BYTES, itemBytes, utf8Bytes } from '../event-table/item-size.ts';
import { PAYLOAD_KEY_PREFIX, PayloadStoreMissingError } from '../event-table/payload-bucket.ts';
import {
  cliKeysOfBody,
  type ReusedCliKey,
  sendRejectedRecord,
} from '../send-records/outcome-records.ts';
import { MAX_REJECTION_POINTERS } from '../send-records/ports.ts';
import type { QueueDelivery, SendDeps } from './ports.ts';

/**
 * Stores the "Send Rejected" event of a message that will never be sent. The message goes whole
 * into the item unless the item would pass its budget of DynamoDB's 400 KB (a queue message may
 * be 1 MiB); then it goes to the payload bucket first and the item and event carry `payloadRef`.
 * The event itself is bounded whatever the message holds (`sendRejectedRecord`).
 */
export const rejectMessage = async (
  delivery: QueueDelivery,
  problems: ReadonlyArray<{ path: string; message: string }>,
  receivedAt: Date,
  deps: SendDeps,
  reusedCliKey?: ReusedCliKey,
): Promise<void> => {
  const inline = sendRejectedRecord(delivery, problems, receivedAt, deps.retentionDays, {
    ...(reusedCliKey ? { reusedCliKey } : {}),
  });
  if (itemBytes(inline) <= ITEM_BUDGET_BYTES) await deps.store.putEvent(inline);
  else
    await deps.store.putEvent(
      await withClaimCheck(delivery, problems, receivedAt, deps, reusedCliKey),
    );
  // Found by cliKey too (`msgbridge trace`, the console): a pointer in each cliKey's partition,
  // written again by a redelivery that finds the event stored.
  const cliKeys = [...new Set(cliKeysOfBody(delivery.body))]
    .filter((cliKey) => cliKey !== '' && utf8Bytes(cliKey) <= MAX_POINTER_KEY_BYTES)
    .slice(0, MAX_REJECTION_POINTERS);
  if (cliKeys.length > 0)
    await deps.store.pointToRejection({
      sqsMessageId: delivery.messageId,
      cliKeys,
      receivedAt: receivedAt.toISOString(),
    });
};

/** A cliKey longer than this (the gateway allows 30 characters) gets no pointer. */
const MAX_POINTER_KEY_BYTES = 256;

/** The rejection with the message kept in the payload bucket, for an item that cannot hold it. */
const withClaimCheck = async (
  delivery: QueueDelivery,
  problems: ReadonlyArray<{ path: string; message: string }>,
  receivedAt: Date,
  deps: SendDeps,
  reusedCliKey: ReusedCliKey | undefined,
) => {
  if (!deps.payloads)
    throw new PayloadStoreMissingError(
      'a rejected message too large for its item needs the payload bucket, and none is configured',
    );
  const bodySha256 = createHash('sha256').update(delivery.body, 'utf8').digest('hex');
  const stored = await deps.payloads.put(
    `${PAYLOAD_KEY_PREFIX}send/${bodySha256}`,
    delivery.body,
    'application/json',
  );
  return sendRejectedRecord(delivery, problems, receivedAt, deps.retentionDays, {
    ...(reusedCliKey ? { reusedCliKey } : {}),
    payloadRef: { ...stored, item: null },
  });
};
