/**
 * Rejected sends on DynamoDB Local, AWS's own engine with its real 400 KB item limit: a message
 * too large for its item is rejected once (its body in the payload bucket), a cliKey reused with
 * other content is refused by the claim's condition, and each rejection is found by
 * `msgbridge trace` (and the console, which traces the same way) by its SQS message id and by
 * every cliKey it named.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { utf8Bytes } from '../../functions/event-table/item-size.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import type { SendDeps } from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { type Trace, traceKey } from '../../ops/trace.ts';
import { createEventTable, local, useDynamoDbLocal } from '../support/dynamodb-local.ts';
import {
  acceptAll,
  delivery,
  MemoryPayloads,
  NOW,
  ScriptedGateway,
  UNLIMITED,
} from '../support/send-use-case-world.ts';

useDynamoDbLocal();

const setup = async () => {
  const { eventTable } = await createEventTable();
  const documents = DynamoDBDocumentClient.from(localDynamoDbClient(local().server.endpoint), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const store = new DynamoDbSendStore(eventTable, 35, documents);
  const payloads = new MemoryPayloads();
  const gateway = new ScriptedGateway(acceptAll);
  const deps: SendDeps = {
    store,
    awaiting: { expect: async () => {} },
    acceptedEvents: false,
    gateway,
    rateLimiter: UNLIMITED,
    now: () => NOW,
    retentionDays: 35,
    claimLeaseMs: 60_000,
    deadline: Date.now() + 30_000,
    payloads,
  };
  const trace = (key: string) => traceKey(documents, eventTable, key);
  return { deps, gateway, objects: payloads.objects, trace };
};

const types = (trace: Trace) => trace.entries.map((entry) => entry.type ?? entry.summary);

describe('rejected sends on DynamoDB Local', () => {
  it('rejects a message over 400 KB once, and traces it by message id and by cliKey', async () => {
    // Prepare: 450 KB of Hangul text, over DynamoDB's item limit
    const { deps, objects, trace } = await setup();
    const message = { channel: 'sms', ...smsBody(1), msg: '가'.repeat(150_000) };
    const cliKey = message.recvInfoLst[0]?.cliKey ?? '';
    const body = JSON.stringify(message);
    expect(utf8Bytes(body)).toBeGreaterThan(409_600);

    // Act: delivered twice, as a redelivery would
    const first = await sendQueuedMessage(delivery(body, 1, 'sqs-huge'), deps);
    const again = await sendQueuedMessage(delivery(body, 2, 'sqs-huge'), deps);
    const byId = await trace('sqs-huge');
    const byCliKey = await trace(cliKey);

    // Assess
    expect([first.kind, again.kind]).toEqual(['invalid', 'invalid']);
    expect([...objects.values()]).toEqual([body]);
    expect(types(byId)).toEqual(['Send Rejected']);
    expect(byId.entries[0]?.summary).toMatch(
      /^queue message sqs-huge rejected, 1 problem: \$\.msg/,
    );
    expect(types(byCliKey)).toEqual(
      expect.arrayContaining(['Send Rejected', 'named by rejected queue message sqs-huge']),
    );
  });

  it('refuses a cliKey reused with other content by the claim’s condition, and traces both messages by the cliKey', async () => {
    const { deps, gateway, trace } = await setup();
    const message = { channel: 'sms', ...smsBody(1) };
    const cliKey = message.recvInfoLst[0]?.cliKey ?? '';
    const other = { ...message, msg: `${message.msg} 다른 내용` };

    const sent = await sendQueuedMessage(delivery(message, 1, 'sqs-first'), deps);
    const retried = await sendQueuedMessage(delivery(message, 1, 'sqs-retry'), deps);
    const reused = await sendQueuedMessage(delivery(other, 1, 'sqs-other'), deps);
    const traced = await trace(cliKey);

    expect(sent).toMatchObject({ kind: 'done', accepted: 1 });
    expect(retried).toMatchObject({ kind: 'done', skipped: 1 });
    expect(reused).toEqual({ kind: 'invalid', problems: 1 });
    expect(gateway.calls).toEqual([[cliKey]]);
    const rejection = traced.entries.find((entry) => entry.type === 'Send Rejected');
    expect(rejection?.data).toMatchObject({
      sqsMessageId: 'sqs-other',
      reusedCliKey: { cliKey, sqsMessageId: 'sqs-first' },
    });
  });
});
