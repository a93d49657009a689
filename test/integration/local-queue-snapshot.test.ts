/**
 * The send queue across a stop of the local run: fauxqs keeps nothing, so the messages still
 * waiting (ready, delayed or received and not deleted) are saved on a clean stop and put back,
 * body and attributes, on the next start.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';
import { QUEUE_SNAPSHOT_FILE, restoreQueues, saveQueues } from '../../local/queue-snapshot.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-queues-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = async () => {
  const server = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
  const dlq = server.createQueue('msgbridge-send-dlq');
  const queue = server.createQueue('msgbridge-send');
  const sqs = new SQSClient({
    endpoint: server.address,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    server,
    sqs,
    urls: { 'msgbridge-send': queue.queueUrl, 'msgbridge-send-dlq': dlq.queueUrl },
  };
};

const receiveAll = async (sqs: SQSClient, url: string): Promise<Message[]> => {
  const messages: Message[] = [];
  for (;;) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if ((answer.Messages ?? []).length === 0) return messages;
    messages.push(...(answer.Messages ?? []));
  }
};

describe('the send queue across a stop', () => {
  it('puts back every waiting message, received-but-not-deleted and delayed ones included', async () => {
    // Prepare: three waiting, one delayed, one received by a sender that stopped, one in the DLQ.
    const first = await start();
    const attributes = { channel: { DataType: 'String', StringValue: 'sms' } };
    for (const body of ['a', 'b', 'c']) {
      await first.sqs.send(
        new SendMessageCommand({
          QueueUrl: first.urls['msgbridge-send'],
          MessageBody: body,
          MessageAttributes: attributes,
        }),
      );
    }
    await first.sqs.send(
      new SendMessageCommand({
        QueueUrl: first.urls['msgbridge-send'],
        MessageBody: 'later',
        DelaySeconds: 900,
      }),
    );
    const received = await first.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: first.urls['msgbridge-send'], MaxNumberOfMessages: 1 }),
    );
    await first.sqs.send(
      new SendMessageCommand({ QueueUrl: first.urls['msgbridge-send-dlq'], MessageBody: 'dead' }),
    );

    // Act
    const saved = await saveQueues(first.server, ['msgbridge-send', 'msgbridge-send-dlq'], dataDir);
    first.sqs.destroy();
    await first.server.stop();
    const second = await start();
    const restored = await restoreQueues(second.sqs, second.urls, dataDir);
    const queued = await receiveAll(second.sqs, second.urls['msgbridge-send']);
    const dead = await receiveAll(second.sqs, second.urls['msgbridge-send-dlq']);
    second.sqs.destroy();
    onTestFinished(() => second.server.stop());

    // Assess
    expect(received.Messages).toHaveLength(1);
    expect(saved).toEqual({ 'msgbridge-send': 4, 'msgbridge-send-dlq': 1 });
    expect(restored).toEqual(saved);
    // The delayed one is still delayed after the restore.
    expect(queued.map((message) => message.Body).sort()).toEqual(['a', 'b', 'c']);
    expect(
      second.server.inspectQueue('msgbridge-send')?.messages.delayed.map((m) => m.body),
    ).toEqual(['later']);
    expect(
      queued.filter((message) => message.Body !== 'later').map((m) => m.MessageAttributes),
    ).toEqual([attributes, attributes, attributes]);
    expect(dead.map((message) => message.Body)).toEqual(['dead']);
    expect(existsSync(join(dataDir, QUEUE_SNAPSHOT_FILE))).toBe(false);
  });

  it('writes nothing when every queue is empty, and restores nothing without a file', async () => {
    const run = await start();

    const saved = await saveQueues(run.server, ['msgbridge-send', 'msgbridge-send-dlq'], dataDir);
    const restored = await restoreQueues(run.sqs, run.urls, dataDir);
    run.sqs.destroy();
    await run.server.stop();

    expect(saved).toEqual({});
    expect(restored).toEqual({});
    expect(existsSync(join(dataDir, QUEUE_SNAPSHOT_FILE))).toBe(false);
  });
});
