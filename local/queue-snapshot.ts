/**
 * The local run's send queue across a stop. fauxqs keeps its queues in memory only (its README:
 * no persistence across restarts), so on a clean stop the messages still waiting — ready, delayed,
 * or received and not deleted — are written to `DIR/send-queues.json`, and the next start puts
 * them back before anything else happens. Without it, a stop would drop every queued send.
 *
 * A message received when the stop came is saved too, so it may be sent again after the start;
 * the sender dedupes on cliKey against the (persisted) event table, as it does for any SQS
 * redelivery. Receive counts start again at 1: the queue is new.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from '../gateway/schemas/zod.ts';
import { OWNER_ONLY_FILE } from './data-dir.ts';

export const QUEUE_SNAPSHOT_FILE = 'send-queues.json';

const MessageSchema = z.object({
  body: z.string(),
  /** What was left of a delayed message's delay at the stop; it starts again at the restore. */
  delaySeconds: z.optional(z.int().check(z.minimum(0), z.maximum(900))),
  attributes: z.record(
    z.string(),
    z.object({
      DataType: z.string(),
      StringValue: z.optional(z.string()),
      BinaryValue: z.optional(z.string()),
    }),
  ),
});
const SnapshotSchema = z.record(z.string(), z.array(MessageSchema));
export type SavedMessage = z.infer<typeof MessageSchema>;
/** A message a queue holds, with the id the queue gave it (the send journal keeps it). */
export type WaitingMessage = SavedMessage & { readonly messageId: string };

/** What the snapshot needs of fauxqs: its non-destructive inspection of a queue. */
export interface InspectableQueues {
  inspectQueue(name: string):
    | {
        readonly messages: {
          readonly ready: readonly QueuedMessage[];
          readonly delayed: readonly QueuedMessage[];
          readonly inflight: readonly { readonly message: QueuedMessage }[];
        };
      }
    | undefined;
}

interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  /** Epoch milliseconds until which a delayed message stays invisible. */
  readonly delayUntil?: number;
  readonly messageAttributes: Record<
    string,
    { DataType: string; StringValue?: string; BinaryValue?: string }
  >;
}

/**
 * Every message of the named queues that holds any: ready, delayed (with what is left of its
 * delay) and received but not deleted, as a snapshot or the send journal keeps them.
 */
export const queuedMessages = (
  queues: InspectableQueues,
  names: readonly string[],
): Record<string, WaitingMessage[]> => {
  const snapshot: Record<string, WaitingMessage[]> = {};
  for (const name of names) {
    const messages = queues.inspectQueue(name)?.messages;
    if (messages === undefined) continue;
    const all = [
      ...messages.ready,
      ...messages.delayed,
      ...messages.inflight.map((entry) => entry.message),
    ];
    if (all.length === 0) continue;
    const now = Date.now();
    snapshot[name] = all.map((message) => {
      const delay = Math.ceil(((message.delayUntil ?? now) - now) / 1000);
      return {
        messageId: message.messageId,
        body: message.body,
        ...(delay > 0 ? { delaySeconds: Math.min(delay, 900) } : {}),
        attributes: message.messageAttributes,
      };
    });
  }
  return snapshot;
};

/**
 * Writes every message of the named queues to `dataDir/send-queues.json` (nothing when all are
 * empty); stop the consumers first, so that no message is in the middle of being handled.
 * @returns how many messages were saved, per queue
 */
export const saveQueues = async (
  queues: InspectableQueues,
  names: readonly string[],
  dataDir: string,
): Promise<Record<string, number>> => {
  const snapshot = queuedMessages(queues, names);
  const counts = Object.fromEntries(
    Object.entries(snapshot).map(([name, messages]) => [name, messages.length]),
  );
  if (Object.keys(snapshot).length === 0) return counts;
  // Written aside and renamed, so a crash mid-write never leaves half a snapshot.
  const path = join(dataDir, QUEUE_SNAPSHOT_FILE);
  // Owner only: the waiting sends hold phone numbers and texts (data-dir.ts).
  await writeFile(`${path}.tmp`, JSON.stringify(snapshot), { mode: OWNER_ONLY_FILE });
  await rename(`${path}.tmp`, path);
  return counts;
};

/**
 * Puts the messages of `dataDir/send-queues.json` back on their queues (by name → URL) and
 * removes the file once every one is back. If one fails, the error is thrown and the file is left
 * for the next start; the messages already put back then arrive twice, which the sender's cliKey
 * dedupe absorbs.
 * @returns how many messages were restored, per queue
 */
export const restoreQueues = async (
  sqs: SQSClient,
  urls: Readonly<Record<string, string>>,
  dataDir: string,
): Promise<Record<string, number>> => {
  const path = join(dataDir, QUEUE_SNAPSHOT_FILE);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  const snapshot = SnapshotSchema.parse(JSON.parse(text));
  const counts: Record<string, number> = {};
  for (const [name, messages] of Object.entries(snapshot)) {
    const url = urls[name];
    if (url === undefined) throw new Error(`${path}: no queue named ${name} to restore into`);
    for (const message of messages) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: message.body,
          DelaySeconds: message.delaySeconds,
          MessageAttributes: toSdkAttributes(message.attributes),
        }),
      );
    }
    counts[name] = messages.length;
  }
  await rm(path, { force: true });
  return counts;
};

/** Saved message attributes as the SDK takes them (binary values base64-decoded). */
export const toSdkAttributes = (
  attributes: SavedMessage['attributes'],
): Record<string, MessageAttributeValue> | undefined => {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([name, value]) => [
      name,
      {
        DataType: value.DataType,
        ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
        ...(value.BinaryValue === undefined
          ? {}
          : { BinaryValue: Buffer.from(value.BinaryValue, 'base64') }),
      },
    ]),
  );
};
