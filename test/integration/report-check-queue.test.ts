/**
 * The report-check queue's SQS adapter against fauxqs: checks come back parsed, stay hidden while received, come back unless finished,
 * and an unreadable body is handed over with its problem, not dropped.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsReportChecks } from '../../functions/reconcile/adapters/sqs-report-checks.ts';
import type { ReportCheck } from '../../functions/sending/ports.ts';
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

describe('the report-check queue on SQS', () => {
  it('sends each check and reads them back parsed', async () => {
    // Prepare
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url, 30);

    // Act: twelve checks at once
    await Promise.all(Array.from({ length: 12 }, (_, n) => checks.expect(check(n))));
    const first = await checks.receive(10);
    const second = await checks.receive(10);

    // Assess
    expect(calls.filter((name) => name === 'SendMessageCommand')).toHaveLength(12);
    const received = [...first, ...second];
    expect(received).toHaveLength(12);
    expect(
      received
        .map((item) => ('check' in item ? item.check : item.problem))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual(
      Array.from({ length: 12 }, (_, n) => check(n)).sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      ),
    );
    expect(received.every((item) => item.receiveCount === 1)).toBe(true);
  });

  it('hides a received check until its visibility ends, and deletes a finished one', async () => {
    // Prepare: a visibility timeout of 1 s
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url, 1);
    await checks.expect(check(1));
    await checks.expect(check(2));

    // Act
    const received = await checks.receive(10);
    const hidden = await checks.receive(10);
    const one = received[0];
    if (one) await checks.finish([one.id]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const back = await checks.receive(10);

    // Assess: only the unfinished one comes back, received a second time
    expect(received).toHaveLength(2);
    expect(hidden).toEqual([]);
    expect(back).toHaveLength(1);
    expect(back[0]?.messageId).toBe(received[1]?.messageId);
    expect(back[0]?.receiveCount).toBe(2);
  });

  it('hands over a body it cannot read with the problem, leaving it on the queue', async () => {
    const url = freshQueue();
    const checks = new SqsReportChecks(sqs, url, 30);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: '{"v":1,"channel":"fax"}' }),
    );

    const [received] = await checks.receive(10);

    expect(received).toMatchObject({
      problem: expect.stringContaining('channel'),
      body: '{"v":1,"channel":"fax"}',
    });
  });
});
