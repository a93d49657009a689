/**
 * The local run's send journal (local/send-journal.ts) on fauxqs: a send is on disk before its
 * producer is answered, the journal's messages come back on a new queue after a crash (each send
 * once, and not again when the clean-stop snapshot has it), and a compaction keeps the journal to
 * what the queues hold.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalQueues } from '../../local/aws/local-queues.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';
import {
  replaySendJournal,
  SEND_JOURNAL_FILE,
  SEND_JOURNAL_SKIPPED_FILE,
  type SendJournal,
  sendIdentity,
  startSendJournal,
} from '../../local/send-journal.ts';

const QUEUE = 'send-queue';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const client = (endpoint: string) =>
  new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

const fauxqs = async (): Promise<{ server: FauxqsServer; url: string }> => {
  // The local run's queues: SQS's body rule (local/aws/local-queues.ts).
  const server = await startLocalQueues();
  cleanups.push(() => server.stop());
  return { server, url: server.createQueue(QUEUE).queueUrl };
};

/** The journal in a new data directory before `queues`, and a producer that sends through it. */
const journalBefore = async (queues: FauxqsServer) => {
  const dir = mkdtempSync(join(tmpdir(), 'msgbridge-journal-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const journal: SendJournal = await startSendJournal({
    upstream: queues.address,
    dataDir: dir,
    queues,
    queueNames: [QUEUE],
    compactEveryMs: 60_000,
  });
  cleanups.push(() => journal.close());
  const producer = client(journal.url);
  cleanups.push(() => producer.destroy());
  return { dir, journal, producer };
};

const message = (cliKey: string) =>
  JSON.stringify({ channel: 'sms', msg: 'x', recvInfoLst: [{ cliKey, phone: '01000000000' }] });

const journalLines = (dir: string) =>
  readFileSync(join(dir, SEND_JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        JSON.parse(line) as {
          queue: string;
          body: string;
          messageId: string;
          delaySeconds?: number;
        },
    );

const bodies = async (endpoint: string, url: string): Promise<string[]> => {
  const sqs = client(endpoint);
  const answer = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  sqs.destroy();
  return (answer.Messages ?? []).map((m) => m.Body ?? '').sort();
};

describe('the send journal', () => {
  it('has every accepted send on disk, and puts each back once after a crash', async () => {
    const before = await fauxqs();
    const { dir, producer } = await journalBefore(before.server);

    // Act 1: sends as producers make them, one and in a batch, one with a delay.
    await producer.send(
      new SendMessageCommand({ QueueUrl: before.url, MessageBody: message('a') }),
    );
    await producer.send(
      new SendMessageBatchCommand({
        QueueUrl: before.url,
        Entries: [
          { Id: '1', MessageBody: message('b') },
          { Id: '2', MessageBody: message('c'), DelaySeconds: 60 },
        ],
      }),
    );
    const written = journalLines(dir);

    // Act 2: the run dies (nothing is stopped cleanly); a new one replays the journal, the
    // snapshot having put back "c" already.
    const after = await fauxqs();
    const sqs = client(after.server.address);
    const { replayed: counts } = await replaySendJournal(
      sqs,
      { [QUEUE]: after.url },
      dir,
      new Set([sendIdentity({ queue: QUEUE, body: message('c') })]),
    );
    const queued = await bodies(after.server.address, after.url);
    const { replayed: again } = await replaySendJournal(sqs, { [QUEUE]: after.url }, dir);
    sqs.destroy();

    // Assess
    expect(written.map((line) => line.body)).toEqual([message('a'), message('b'), message('c')]);
    expect(written[2]?.delaySeconds).toBe(60);
    expect(counts).toEqual({ [QUEUE]: 2 });
    expect(queued).toEqual([message('a'), message('b')]);
    // A replay that meets the same journal twice puts each send back each time: the sender's
    // cliKey dedupe absorbs it, as any redelivery.
    expect(again).toEqual({ [QUEUE]: 3 });
  });

  it('journals only what the queue accepted, each line with the id the queue gave it', async () => {
    const queues = await fauxqs();
    const { dir, producer } = await journalBefore(queues.server);
    // A control character SQS refuses (InvalidMessageContents), raw in the body.
    const refusedBody = `${message('refused')}\u0001`;

    // Act: accepted, refused alone, then a batch the queue takes in part.
    const first = await producer.send(
      new SendMessageCommand({ QueueUrl: queues.url, MessageBody: message('a') }),
    );
    const refused = await producer
      .send(new SendMessageCommand({ QueueUrl: queues.url, MessageBody: refusedBody }))
      .then(
        () => 'accepted',
        (error: unknown) => (error as Error).name,
      );
    const batch = await producer.send(
      new SendMessageBatchCommand({
        QueueUrl: queues.url,
        Entries: [
          { Id: 'refused', MessageBody: refusedBody },
          { Id: 'b', MessageBody: message('b 😀') },
        ],
      }),
    );

    // Assess: the producer hears what the queue said; the journal holds the two it took.
    expect(refused).toMatch(/InvalidMessageContents$/);
    expect(batch.Failed?.map((entry) => entry.Id)).toEqual(['refused']);
    expect(journalLines(dir).map(({ body, messageId }) => ({ body, messageId }))).toEqual([
      { body: message('a'), messageId: first.MessageId },
      { body: message('b 😀'), messageId: batch.Successful?.[0]?.MessageId },
    ]);
  });

  it('replays every accepted send of a journal past a line it cannot read or the queue refuses, and reports that line', async () => {
    // Prepare: a journal as a killed run may leave it, with bad lines in the middle.
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-journal-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const line = (body: string, queue = QUEUE) =>
      JSON.stringify({ queue, body, messageId: `id-${body.length}`, attributes: {} });
    writeFileSync(
      join(dir, SEND_JOURNAL_FILE),
      [
        line(message('a')),
        line(`${message('refused')}\u0001`),
        '{"queue":"send-queue","body":"cut off by the cr',
        JSON.stringify({ queue: QUEUE, note: 'no body' }),
        line(message('lost-queue'), 'no-such-queue'),
        line(message('b')),
        line(message('c')),
        '',
      ].join('\n'),
    );
    const after = await fauxqs();
    const sqs = client(after.server.address);
    cleanups.push(() => sqs.destroy());

    // Act
    const result = await replaySendJournal(sqs, { [QUEUE]: after.url }, dir);
    const queued = await bodies(after.server.address, after.url);

    // Assess: a, b and c are back; each other line is reported with its number and reason.
    expect(result.replayed).toEqual({ [QUEUE]: 3 });
    expect(queued).toEqual([message('a'), message('b'), message('c')]);
    expect(result.skipped.map((skip) => skip.line)).toEqual([2, 3, 4, 5]);
    expect(result.skipped[0]?.reason).toMatch(/InvalidMessageContents/);
    expect(result.skipped[1]?.reason).toMatch(/not readable/);
    expect(result.skipped[3]?.reason).toMatch(/no queue named no-such-queue/);
    // Kept aside, owner-only, for whoever wants to look: nothing is dropped silently.
    const kept = readFileSync(join(dir, SEND_JOURNAL_SKIPPED_FILE), 'utf8').trim().split('\n');
    expect(kept).toHaveLength(4);
    expect(statSync(join(dir, SEND_JOURNAL_SKIPPED_FILE)).mode & 0o777).toBe(0o600);
  });

  it('is compacted to what the queues still hold', async () => {
    const queues = await fauxqs();
    const { dir, journal, producer } = await journalBefore(queues.server);
    for (const cliKey of ['a', 'b', 'c'])
      await producer.send(
        new SendMessageCommand({ QueueUrl: queues.url, MessageBody: message(cliKey) }),
      );

    // Act: "a" is sent and deleted by the consumer; then the journal is compacted.
    const consumer = client(queues.server.address);
    const received = await consumer.send(
      new ReceiveMessageCommand({ QueueUrl: queues.url, MaxNumberOfMessages: 10 }),
    );
    const sent = received.Messages?.find((m) => m.Body === message('a'));
    await consumer.send(
      new DeleteMessageCommand({ QueueUrl: queues.url, ReceiptHandle: sent?.ReceiptHandle }),
    );
    consumer.destroy();
    await journal.compact();

    // Assess: b and c are in flight (received, not deleted), so they stay; a is gone.
    expect(
      journalLines(dir)
        .map((line) => line.body)
        .sort(),
    ).toEqual([message('b'), message('c')]);
  });
});
