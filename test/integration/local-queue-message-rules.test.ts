/**
 * The local run's queues accept what SQS accepts, no more and no less (DESIGN.md, "Local run").
 * SQS allows in a body #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF and
 * refuses anything else with InvalidMessageContents; a message may be up to 1,048,576 bytes (the
 * rule: aws-semantics/sqs-message.ts, with its sources). These run through fauxqs's own
 * SendMessage and SendMessageBatch as the local run starts it, so a fauxqs that changes how it
 * checks bodies fails here.
 */
import {
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQS_MAX_MESSAGE_BYTES } from '../../aws-semantics/sqs-message.ts';
import { startLocalQueues } from '../../local/aws/local-queues.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';

let server: FauxqsServer;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  server = await startLocalQueues();
  sqs = new SQSClient({
    endpoint: server.address,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  queueUrl = server.createQueue('message-rules').queueUrl;
});

afterAll(async () => {
  sqs?.destroy();
  await server?.stop();
});

/** Every character class SQS allows, at its edges, and the texts a producer writes. */
const ALLOWED: Record<string, string> = {
  'emoji (U+1F600, a surrogate pair in UTF-16)': '배송 출발 😀',
  'U+10000, the first supplementary character': '\u{10000}',
  'U+10FFFF, the last code point': '\u{10FFFF}',
  'tab, line feed, carriage return': 'a\tb\nc\rd',
  'U+0020 and U+D7FF': ' \uD7FF',
  'U+E000 and U+FFFD': '\uE000\uFFFD',
  'Hangul and a family emoji with joiners': '한빛 👨‍👩‍👧 🇰🇷',
};

/** What SQS refuses: characters outside the list, among them the halves of a broken pair. */
const REFUSED: Record<string, string> = {
  'a lone high surrogate': 'text \uD83D end',
  'a lone low surrogate': 'text \uDE00 end',
  'a pair written backwards': '\uDE00\uD83D',
  'U+FFFE': 'x\uFFFE',
  'U+FFFF': 'x\uFFFF',
  'U+0000': 'x\u0000',
  'U+0001': 'x\u0001',
  'U+001F': 'x\u001F',
  'U+0008 (backspace)': 'x\b',
};

const drain = async (): Promise<string[]> => {
  const bodies: string[] = [];
  for (;;) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    if (!answer.Messages?.length) return bodies;
    bodies.push(...answer.Messages.map((message) => message.Body ?? ''));
  }
};

describe('the local queue and the characters of a body', () => {
  it.each(Object.entries(ALLOWED))('accepts %s, and hands it back unchanged', async (_, text) => {
    // Act
    const one = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: text }));
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [{ Id: 'a', MessageBody: text }],
      }),
    );

    // Assess
    expect(one.MessageId).toBeTruthy();
    expect(batch.Failed ?? []).toEqual([]);
    expect(await drain()).toEqual([text, text]);
  });

  it.each(Object.entries(REFUSED))('refuses %s, as SQS does', async (_, text) => {
    // Act
    const one = await sqs
      .send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: text }))
      .then(
        () => 'accepted',
        (error: unknown) => (error as Error).name,
      );
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'bad', MessageBody: text },
          { Id: 'good', MessageBody: 'fine 😀' },
        ],
      }),
    );

    // Assess: refused alone and in a batch, where only its own entry fails.
    // fauxqs names the error with the Query protocol's prefix; the code is SQS's.
    expect(one).toMatch(/(^|\.)InvalidMessageContents$/);
    expect(batch.Failed).toEqual([
      expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'InvalidMessageContents' }),
    ]);
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['good']);
    expect(await drain()).toEqual(['fine 😀']);
  });
});

describe('the local queue and the size of a message', () => {
  /** A body of exactly `bytes` bytes in UTF-8, emoji (4 bytes each) and then ASCII. */
  const bodyOf = (bytes: number) => '😀'.repeat(1_000) + 'x'.repeat(bytes - 4_000);

  it('accepts a message of 1,048,576 bytes and refuses one of 1,048,577, as SQS does', async () => {
    // Prepare
    const largest = bodyOf(SQS_MAX_MESSAGE_BYTES);
    const over = bodyOf(SQS_MAX_MESSAGE_BYTES + 1);

    // Act
    const accepted = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: largest }),
    );
    const refused = await sqs
      .send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: over }))
      .then(
        () => 'accepted',
        (error: unknown) => (error as Error).name,
      );

    // Assess
    expect(Buffer.byteLength(largest)).toBe(1_048_576);
    expect(accepted.MessageId).toBeTruthy();
    expect(refused).toMatch(/(^|\.)InvalidParameterValue$/);
    const received = await drain();
    expect(received.map((body) => Buffer.byteLength(body))).toEqual([1_048_576]);
    expect(received[0] === largest).toBe(true);
  });
});
