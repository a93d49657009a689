import {
  DescribeReplayCommand,
  EventBridgeClient,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { redriveDlq } from '../../ops/redrive.ts';
import { localEventsInRange, replayArchive } from '../../ops/replay.ts';

const sqsMock = mockClient(SQSClient);
const eventBridgeMock = mockClient(EventBridgeClient);
afterEach(() => {
  sqsMock.reset();
  eventBridgeMock.reset();
});

const message = (n: number) => ({
  MessageId: `id-${n}`,
  ReceiptHandle: `rh-${n}`,
  Body: `{"n":${n}}`,
  MessageAttributes: { origin: { DataType: 'String', StringValue: `o-${n}` } },
});

describe('redriveDlq', () => {
  it('sends with body and attributes, retries SQS-side failures, deletes only what was sent', async () => {
    // Prepare: 3 messages; m1 fails once on the SQS side, m2 is refused as the sender's fault.
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [message(0), message(1), message(2)] })
      .resolves({ Messages: [] });
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: 'm0', MessageId: 'q0', MD5OfMessageBody: '' }],
        Failed: [
          { Id: 'm1', SenderFault: false, Code: 'InternalError' },
          { Id: 'm2', SenderFault: true, Code: 'InvalidMessageContents', Message: 'bad' },
        ],
      })
      .resolves({ Successful: [{ Id: 'm1', MessageId: 'q1', MD5OfMessageBody: '' }], Failed: [] });
    sqsMock.on(DeleteMessageBatchCommand).resolves({
      Successful: [{ Id: 'd0' }, { Id: 'd1' }],
      Failed: [],
    });
    const progress: number[] = [];

    // Act
    const result = await redriveDlq({
      sqs: new SQSClient({ region: 'ap-northeast-2' }),
      dlqUrl: 'dlq',
      queueUrl: 'queue',
      onProgress: (moved) => progress.push(moved),
    });

    // Assess
    expect(result).toEqual({
      moved: 2,
      notSent: [{ messageId: 'id-2', code: 'InvalidMessageContents', message: 'bad' }],
      notDeleted: [],
    });
    const sends = sqsMock.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(sends[0]?.QueueUrl).toBe('queue');
    expect(sends[0]?.Entries?.[0]).toEqual({
      Id: 'm0',
      MessageBody: '{"n":0}',
      MessageAttributes: { origin: { DataType: 'String', StringValue: 'o-0' } },
    });
    expect(sends[1]?.Entries?.map((entry) => entry.Id)).toEqual(['m1']);
    const deletes = sqsMock
      .commandCalls(DeleteMessageBatchCommand)
      .map((call) => call.args[0].input);
    expect(deletes).toEqual([
      {
        QueueUrl: 'dlq',
        Entries: [
          { Id: 'd0', ReceiptHandle: 'rh-0' },
          { Id: 'd1', ReceiptHandle: 'rh-1' },
        ],
      },
    ]);
    expect(progress).toEqual([2]);
    const receive = sqsMock.commandCalls(ReceiveMessageCommand)[0]?.args[0].input;
    expect(receive).toMatchObject({ QueueUrl: 'dlq', WaitTimeSeconds: 1, MaxNumberOfMessages: 10 });
  });

  it('reports failed deletes, stops at --max, and stops when nothing of a batch could be sent', async () => {
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [message(0), message(1)] })
      .resolves({ Messages: [message(2)] });
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [
          { Id: 'm0', MessageId: 'q0', MD5OfMessageBody: '' },
          { Id: 'm1', MessageId: 'q1', MD5OfMessageBody: '' },
        ],
      })
      .resolves({ Successful: [{ Id: 'm0', MessageId: 'q2', MD5OfMessageBody: '' }] });
    sqsMock
      .on(DeleteMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: 'd0' }],
        Failed: [{ Id: 'd1', Code: 'ReceiptHandleIsInvalid', SenderFault: true, Message: 'old' }],
      })
      .resolves({ Successful: [{ Id: 'd0' }] });
    const capped = await redriveDlq({
      sqs: new SQSClient({ region: 'ap-northeast-2' }),
      dlqUrl: 'dlq',
      queueUrl: 'queue',
      max: 3,
    });
    expect(capped.moved).toBe(3);
    expect(capped.notDeleted).toEqual([
      { messageId: 'id-1', code: 'ReceiptHandleIsInvalid', message: 'old' },
    ]);
    const asked = sqsMock
      .commandCalls(ReceiveMessageCommand)
      .map((call) => call.args[0].input.MaxNumberOfMessages);
    expect(asked).toEqual([3, 1]);

    sqsMock.reset();
    sqsMock.on(ReceiveMessageCommand).resolves({ Messages: [message(5)] });
    sqsMock.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: 'm0', SenderFault: true, Code: 'AccessDenied' }],
    });
    const stuck = await redriveDlq({
      sqs: new SQSClient({ region: 'ap-northeast-2' }),
      dlqUrl: 'dlq',
      queueUrl: 'queue',
    });
    expect(stuck).toMatchObject({
      moved: 0,
      notSent: [{ messageId: 'id-5', code: 'AccessDenied' }],
    });
    expect(sqsMock.commandCalls(ReceiveMessageCommand)).toHaveLength(1);
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
  });
});

describe('replayArchive', () => {
  const from = new Date('2025-06-01T00:00:00Z');
  const to = new Date('2025-06-01T10:00:00Z');

  it('starts the replay from the archive to the bus and polls until COMPLETED', async () => {
    // Prepare
    eventBridgeMock.on(StartReplayCommand).resolves({ ReplayArn: 'arn:replay', State: 'STARTING' });
    eventBridgeMock
      .on(DescribeReplayCommand)
      .resolvesOnce({ State: 'RUNNING' })
      .resolvesOnce({ State: 'RUNNING', EventLastReplayedTime: new Date('2025-06-01T05:00:00Z') })
      .resolves({ State: 'COMPLETED', EventLastReplayedTime: to });
    const sleeps: number[] = [];
    const progress: number[] = [];

    // Act
    const result = await replayArchive({
      client: new EventBridgeClient({ region: 'ap-northeast-2' }),
      name: 'r1',
      archiveArn: 'arn:archive',
      busArn: 'arn:bus',
      from,
      to,
      pollIntervalMs: 3_000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onProgress: (percent) => progress.push(percent),
    });

    // Assess
    expect(eventBridgeMock.commandCalls(StartReplayCommand)[0]?.args[0].input).toEqual({
      ReplayName: 'r1',
      EventSourceArn: 'arn:archive',
      EventStartTime: from,
      EventEndTime: to,
      Destination: { Arn: 'arn:bus' },
    });
    expect(sleeps).toEqual([3_000, 3_000, 3_000]);
    expect(progress).toEqual([0, 50, 100]);
    expect(result).toMatchObject({ name: 'r1', arn: 'arn:replay', state: 'COMPLETED' });
  });

  it('fails with the reason when the replay ends FAILED, and returns at once without wait', async () => {
    eventBridgeMock.on(StartReplayCommand).resolves({ ReplayArn: 'arn:replay', State: 'STARTING' });
    eventBridgeMock
      .on(DescribeReplayCommand)
      .resolves({ State: 'FAILED', StateReason: 'no access' });
    const options = {
      client: new EventBridgeClient({ region: 'ap-northeast-2' }),
      name: 'r2',
      archiveArn: 'arn:archive',
      busArn: 'arn:bus',
      from,
      to,
      sleep: async () => undefined,
    };
    await expect(replayArchive(options)).rejects.toThrow('replay r2 ended FAILED: no access');
    const before = eventBridgeMock.commandCalls(DescribeReplayCommand).length;
    await expect(replayArchive({ ...options, wait: false })).resolves.toMatchObject({
      state: 'STARTING',
    });
    expect(eventBridgeMock.commandCalls(DescribeReplayCommand)).toHaveLength(before);
  });
});

describe('localEventsInRange', () => {
  it('keeps the events of [from, to) and leaves out replayed ones and broken lines', () => {
    const line = (time: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ time, source: 'msgbridge', 'detail-type': 'X', detail: {}, ...extra });
    const text = [
      line('2025-06-01T00:59:59.999Z'),
      line('2025-06-01T01:00:00.000Z'),
      line('2025-06-01T01:30:00.000Z', { 'replay-name': 'earlier' }),
      '{broken',
      line('2025-06-01T01:59:59.000Z'),
      line('2025-06-01T02:00:00.000Z'),
    ].join('\n');
    const picked = localEventsInRange(
      text,
      new Date('2025-06-01T01:00:00Z'),
      new Date('2025-06-01T02:00:00Z'),
    );
    expect(picked.map((event) => event.time)).toEqual([
      '2025-06-01T01:00:00.000Z',
      '2025-06-01T01:59:59.000Z',
    ]);
  });
});
