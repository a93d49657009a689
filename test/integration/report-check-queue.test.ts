/**
 * The report-check queue's SQS adapters against fauxqs: the sender's checks arrive as the event
 * source's records and are read back parsed; a check put back is a new message, delayed as asked;
 * what an invocation did not finish is its batch item failures; an unreadable body is handed over
 * with its problem, not dropped.
 */
import {
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchReportChecks,
  SqsReportChecks,
} from '../../functions/send-records/adapters/sqs-report-checks.ts';
import type { ReportCheck } from '../../functions/send-records/ports.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';

let server: FauxqsServer;
let sqs: SQSClient;
let queues = 0;
/** SQS actions the adapter called, in order. */
const calls: string[] = [];

beforeAll(async () => {
  server = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
  sqs = new SQSClient({
    endpoint: server.address,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'recordCalls' },
  );
});

afterAll(async () => {
  await server.stop();
});

const freshQueue = () => {
  queues += 1;
  calls.length = 0;
  return server.createQueue(`report-checks-${queues}`).queueUrl;
};

const check = (n: number): ReportCheck => ({
  channel: 'sms',
  acceptedAt: '2026-11-27T03:00:00.000Z',
  recipients: [{ cliKey: `k-${n}`, msgKey: `M-${n}` }, { cliKey: `k-${n}-b` }],
});

/** Receives what is visible, as the event source's poller does, as records of one batch. */
const poll = async (url: string): Promise<SQSRecord[]> => {
  const answer = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 30,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return (answer.Messages ?? []).map(asRecord);
};

const asRecord = (message: Message): SQSRecord =>
  ({
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: message.Attributes ?? {},
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:ap-northeast-2:000000000000:report-checks',
    awsRegion: LOCAL_REGION,
  }) as SQSRecord;

/** The items sorted by their JSON, to compare what arrived in whatever order. */
const inAnyOrder = <T>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('the report-check queue on SQS', () => {
  it('carries each check the sender queues to reconcile-status, parsed', async () => {
    // Prepare
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url);

    // Act: twelve checks at once
    await Promise.all(Array.from({ length: 12 }, (_, n) => checks.expect(check(n))));
    const batch = new BatchReportChecks([...(await poll(url)), ...(await poll(url))], checks);
    const received = [...(await batch.receive(10)), ...(await batch.receive(10))];

    // Assess
    expect(calls.filter((name) => name === 'SendMessageCommand')).toHaveLength(12);
    expect(received).toHaveLength(12);
    expect(await batch.receive(10)).toEqual([]);
    expect(
      inAnyOrder(received.map((item) => ('check' in item ? item.check : item.problem))),
    ).toEqual(inAnyOrder(Array.from({ length: 12 }, (_, n) => check(n))));
    expect(received.every((item) => item.receiveCount === 1)).toBe(true);
  });

  it('sends the checks queued together in batches of ten when gathering, each caller its own', async () => {
    // Prepare
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url, { gatherMs: 10 });
    const before = calls.length;

    // Act: twelve checks at once
    await Promise.all(Array.from({ length: 12 }, (_, n) => checks.expect(check(n))));
    const batch = new BatchReportChecks([...(await poll(url)), ...(await poll(url))], checks);
    const received = [...(await batch.receive(10)), ...(await batch.receive(10))];

    // Assess: two requests (10 + 2), no single sends, every check arrived once.
    const made = calls.slice(before);
    expect(made.filter((name) => name === 'SendMessageBatchCommand')).toHaveLength(2);
    expect(made.filter((name) => name === 'SendMessageCommand')).toHaveLength(0);
    expect(
      inAnyOrder(received.map((item) => ('check' in item ? item.check : item.problem))),
    ).toEqual(inAnyOrder(Array.from({ length: 12 }, (_, n) => check(n))));
  });

  it('puts a check back as a new message, delayed as asked, and names what was not finished', async () => {
    // Prepare: three checks received in one batch
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url);
    for (const n of [1, 2, 3]) await checks.expect(check(n));
    const records = await poll(url);
    const batch = new BatchReportChecks(records, checks);
    const [first, second, third] = await batch.receive(10);
    if (!first || !second || !third || !('check' in second)) throw new Error('three checks');

    // Act: the first finished, the second put back 2 s later with one recipient, the third left
    await batch.finish([first.id]);
    const putBack = await batch.putBack([
      {
        id: second.id,
        check: { ...second.check, recipients: second.check.recipients.slice(0, 1) },
        delaySeconds: 2,
      },
    ]);
    const meanwhile = await poll(url);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const later = await poll(url);

    // Assess: one SendMessageBatch; the new message hidden for its delay, then there alone
    expect(putBack).toBe(1);
    expect(calls.filter((name) => name === 'SendMessageBatchCommand')).toHaveLength(1);
    expect(batch.unfinished()).toEqual([third.messageId]);
    expect(meanwhile).toEqual([]);
    expect(later).toHaveLength(1);
    expect(later[0]?.messageId).not.toBe(second.messageId);
    await expect(new BatchReportChecks(later, checks).receive(10)).resolves.toEqual([
      expect.objectContaining({
        check: { ...second.check, recipients: second.check.recipients.slice(0, 1) },
      }),
    ]);
  });

  it('leaves a check unfinished when SQS does not take it back', async () => {
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url);
    await checks.expect(check(1));
    const batch = new BatchReportChecks(await poll(url), {
      later: async (entries) => entries.map(() => false),
    });
    const [received] = await batch.receive(10);
    if (!received || !('check' in received)) throw new Error('one check');

    const putBack = await batch.putBack([
      { id: received.id, check: received.check, delaySeconds: 900 },
    ]);

    expect(putBack).toBe(0);
    expect(batch.unfinished()).toEqual([received.id]);
  });

  it('hands over a body it cannot read with the problem, leaving it unfinished', async () => {
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: '{"v":1,"channel":"fax"}' }),
    );

    const batch = new BatchReportChecks(await poll(url), checks);
    const [received] = await batch.receive(10);

    expect(received).toMatchObject({
      problem: expect.stringContaining('channel'),
      body: '{"v":1,"channel":"fax"}',
    });
    expect(batch.unfinished()).toEqual([received?.id]);
  });
});

describe('a batch of report checks', () => {
  it('hands out a message the batch holds twice once, and names it once when unfinished', async () => {
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url);
    for (const n of [1, 2]) await checks.expect(check(n));
    const records = await poll(url);
    const [first] = records;
    if (!first) throw new Error('two checks');

    const batch = new BatchReportChecks([first, ...records], checks);
    const received = [...(await batch.receive(10)), ...(await batch.receive(10))];

    expect(received.map((item) => item.messageId).sort()).toEqual(
      records.map((record) => record.messageId).sort(),
    );
    await batch.finish([received[1]?.id ?? '']);
    expect(batch.unfinished()).toEqual([received[0]?.id]);
  });
});
