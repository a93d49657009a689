import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  type SendMessageBatchCommandOutput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendMessageInput } from '../../functions/send-contract/queue-message.ts';
import { enqueueSend, SQS_MAX_BATCH_BYTES } from '../../producer/enqueue-send.ts';

const QUEUE_URL = 'https://sqs.ap-northeast-2.amazonaws.com/123456789012/msgbridge-send';
const NOW = new Date('2026-12-01T00:00:00.000Z');

const sqs = new SQSClient({ region: 'ap-northeast-2' });
const mock = mockClient(sqs);

afterEach(() => {
  mock.reset();
});

type SmsMessageInput = Extract<SendMessageInput, { channel: 'sms' }>;

const smsMessage = (index: number, extra: Record<string, unknown> = {}): SmsMessageInput => ({
  channel: 'sms',
  callback: '0212345678',
  msg: `주문 ${index}번이 접수되었습니다.`,
  recvInfoLst: [{ cliKey: `order-${index}`, phone: '01012345678', ...extra }],
});

type Entry = NonNullable<SendMessageBatchCommandInput['Entries']>[number];

/** Records every batch and answers each entry with `answer(entry, attempt of that entry)`. */
const answerEntries = (
  answer: (
    entry: Entry,
    attempt: number,
  ) => 'ok' | 'absent' | { SenderFault: boolean; Code: string; Message?: string },
) => {
  const batches: Entry[][] = [];
  const attempts = new Map<string, number>();
  mock.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
    const entries = input.Entries ?? [];
    batches.push(entries);
    const output: SendMessageBatchCommandOutput = {
      $metadata: {},
      Successful: [],
      Failed: [],
    };
    for (const entry of entries) {
      const id = entry.Id ?? '';
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      const result = answer(entry, attempt);
      if (result === 'ok') {
        output.Successful?.push({
          Id: id,
          MessageId: `sqs-${id}-${attempt}`,
          MD5OfMessageBody: 'x',
        });
      } else if (result !== 'absent') {
        output.Failed?.push({ Id: id, ...result });
      }
    }
    return output;
  });
  return { batches, attempts };
};

/** How SQS fails an entry: on its side (retried), or because of the sender (final). */
type EntryFault = { SenderFault: boolean; Code: string; Message: string };
const BUSY: EntryFault = { SenderFault: false, Code: 'ServiceUnavailable', Message: 'busy' };
const BAD_BODY: EntryFault = {
  SenderFault: true,
  Code: 'InvalidParameterValue',
  Message: 'bad body',
};

/** Sends two SMS messages while SQS fails the entry `id` with `fault` on every attempt. */
const sendTwoFailingOne = async (id: string, fault: EntryFault) => {
  const { attempts } = answerEntries((entry) => (entry.Id === id ? fault : 'ok'));
  const result = await enqueueSend(sqs, QUEUE_URL, [smsMessage(0), smsMessage(1)], { now: NOW });
  return { attempts, result };
};

describe('enqueueSend', () => {
  it('sends valid messages in batches of 10, the message JSON as the body', async () => {
    // Prepare
    const messages = Array.from({ length: 23 }, (_, index) => smsMessage(index));
    const { batches } = answerEntries(() => 'ok');

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, messages, { now: NOW });

    // Assess
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 3]);
    expect(mock.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.QueueUrl).toBe(QUEUE_URL);
    expect(batches.flat().map((entry) => JSON.parse(entry.MessageBody ?? ''))).toEqual(messages);
    expect(result.queued.map((q) => q.index)).toEqual(messages.map((_, index) => index));
    expect(result.queued[0]?.messageId).toMatch(/^sqs-/);
    expect(result.invalid).toEqual([]);
    expect(result.failed).toEqual([]);
  });

  it('keeps each batch within 256 KiB', async () => {
    // Prepare: three messages of about 100 KiB each
    const big = (index: number) =>
      smsMessage(index, { userCustomFields: { n: 'x'.repeat(100_000) } });
    const { batches } = answerEntries(() => 'ok');

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, [big(0), big(1), big(2)], { now: NOW });

    // Assess
    expect(batches.map((batch) => batch.length)).toEqual([2, 1]);
    for (const batch of batches) {
      const bytes = batch.reduce((sum, e) => sum + Buffer.byteLength(e.MessageBody ?? ''), 0);
      expect(bytes).toBeLessThanOrEqual(SQS_MAX_BATCH_BYTES);
    }
    expect(result.queued).toHaveLength(3);
  });

  it('reports a message larger than SQS takes without sending it', async () => {
    // Prepare
    const huge = smsMessage(0, { userCustomFields: { n: 'x'.repeat(SQS_MAX_BATCH_BYTES) } });
    answerEntries(() => 'ok');

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, [huge, smsMessage(1)], { now: NOW });

    // Assess
    expect(result.failed).toEqual([
      { index: 0, code: 'MessageTooLarge', message: expect.stringContaining('at most 262144') },
    ]);
    expect(result.queued.map((q) => q.index)).toEqual([1]);
    expect(mock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it('never sends an invalid message and returns its problems', async () => {
    // Prepare
    const broken = { ...smsMessage(1), msg: '가'.repeat(46) };
    const { batches } = answerEntries(() => 'ok');

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, [smsMessage(0), broken, smsMessage(2)], {
      now: NOW,
    });

    // Assess
    expect(result.invalid).toEqual([
      { index: 1, problems: [{ path: '$.msg', message: expect.stringContaining('92 bytes') }] },
    ]);
    expect(batches.flat().map((entry) => JSON.parse(entry.MessageBody ?? ''))).toEqual([
      smsMessage(0),
      smsMessage(2),
    ]);
    expect(result.queued.map((q) => q.index)).toEqual([0, 2]);
  });

  it('sends nothing when every message is invalid', async () => {
    answerEntries(() => 'ok');

    const result = await enqueueSend(sqs, QUEUE_URL, [{ ...smsMessage(0), callback: '' }]);

    expect(result.invalid.map((i) => i.index)).toEqual([0]);
    expect(mock.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });

  it('retries entries SQS failed on its side, only those, and queues them once they pass', async () => {
    // Prepare: entry 1 fails twice, then succeeds
    const { batches } = answerEntries((entry, attempt) =>
      entry.Id === 'm1' && attempt <= 2
        ? { SenderFault: false, Code: 'InternalError', Message: 'try again' }
        : 'ok',
    );

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, [smsMessage(0), smsMessage(1)], { now: NOW });

    // Assess
    expect(batches.map((batch) => batch.map((entry) => entry.Id))).toEqual([
      ['m0', 'm1'],
      ['m1'],
      ['m1'],
    ]);
    expect(result.queued).toEqual([
      { index: 0, messageId: 'sqs-m0-1' },
      { index: 1, messageId: 'sqs-m1-3' },
    ]);
    expect(result.failed).toEqual([]);
  });

  it('reports an entry that still fails after 3 retries', async () => {
    // Act
    const { attempts, result } = await sendTwoFailingOne('m0', BUSY);

    // Assess
    expect(attempts.get('m0')).toBe(4);
    expect(attempts.get('m1')).toBe(1);
    expect(result.failed).toEqual([
      { index: 0, code: 'ServiceUnavailable', message: 'busy (after 4 attempts)' },
    ]);
    expect(result.queued.map((q) => q.index)).toEqual([1]);
  });

  it('does not retry a sender fault', async () => {
    // Act
    const { attempts, result } = await sendTwoFailingOne('m1', BAD_BODY);

    // Assess
    expect(attempts.get('m1')).toBe(1);
    expect(result.failed).toEqual([
      { index: 1, code: 'InvalidParameterValue', message: 'bad body' },
    ]);
    expect(result.queued.map((q) => q.index)).toEqual([0]);
  });

  it('treats an entry missing from both result lists as a retryable failure', async () => {
    // Prepare
    const { attempts } = answerEntries((_, attempt) => (attempt === 1 ? 'absent' : 'ok'));

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, [smsMessage(0)], { now: NOW });

    // Assess
    expect(attempts.get('m0')).toBe(2);
    expect(result.queued).toEqual([{ index: 0, messageId: 'sqs-m0-2' }]);
  });

  it('reports every entry of a batch whose call fails, and goes on with the next batch', async () => {
    // Prepare
    const messages = Array.from({ length: 12 }, (_, index) => smsMessage(index));
    let calls = 0;
    mock.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      calls += 1;
      if (calls === 1) {
        throw Object.assign(new Error('queue does not exist'), { name: 'QueueDoesNotExist' });
      }
      return {
        Successful: (input.Entries ?? []).map((entry) => ({
          Id: entry.Id,
          MessageId: `sqs-${entry.Id}`,
          MD5OfMessageBody: 'x',
        })),
        Failed: [],
      };
    });

    // Act
    const result = await enqueueSend(sqs, QUEUE_URL, messages, { now: NOW });

    // Assess
    expect(result.failed.map((f) => f.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.failed[0]).toEqual({
      index: 0,
      code: 'QueueDoesNotExist',
      message: 'queue does not exist',
    });
    expect(result.queued).toEqual([
      { index: 10, messageId: 'sqs-m10' },
      { index: 11, messageId: 'sqs-m11' },
    ]);
    expect(calls).toBe(2);
  });
});
