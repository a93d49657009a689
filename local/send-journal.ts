/**
 * Sends that survive a crash of the local run. fauxqs keeps its queues in memory only, and the
 * clean-stop snapshot (queue-snapshot.ts) needs a clean stop: a run killed with SIGKILL would lose
 * every message still waiting. So producers reach the queues through this proxy, which appends
 * each message fauxqs accepted from a `SendMessage` / `SendMessageBatch` to
 * `DIR/send-journal.jsonl`, with the message id fauxqs gave it, and waits for the disk before the
 * producer gets its answer. A body the queue refuses is never journaled: the journal holds only
 * what a producer was told was accepted. The next start puts the journal's messages back; the
 * journal is kept short by rewriting it, every few seconds, as what the queues hold then.
 *
 * A replay never stops at a line: one it cannot read (a write cut off by the crash) or one the
 * queue refuses is reported, kept in `DIR/send-journal-skipped.jsonl`, and the lines after it are
 * put back all the same.
 *
 * A message put back that had already been sent is absorbed by the sender's cliKey dedupe (the
 * event table persists across runs), as any SQS redelivery is; a message both in the clean-stop
 * snapshot and in the journal is put back once (by its cliKeys).
 */
import { appendFile, open, readFile, rename, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from '../gateway/schemas/zod.ts';
import {
  type InspectableQueues,
  QUEUE_SNAPSHOT_FILE,
  queuedMessages,
  toSdkAttributes,
} from './queue-snapshot.ts';

export const SEND_JOURNAL_FILE = 'send-journal.jsonl';
/** The lines a replay could not put back, each with its line number and the reason. */
export const SEND_JOURNAL_SKIPPED_FILE = 'send-journal-skipped.jsonl';

const AttributeSchema = z.object({
  DataType: z.string(),
  StringValue: z.optional(z.string()),
  /** Base64, as the JSON protocol carries it. */
  BinaryValue: z.optional(z.string()),
});

const JournalLineSchema = z.object({
  queue: z.string(),
  body: z.string(),
  /** The id the queue gave the message: the journal holds only what it accepted. */
  messageId: z.string().check(z.minLength(1)),
  delaySeconds: z.optional(z.int().check(z.minimum(0), z.maximum(900))),
  attributes: z._default(z.record(z.string(), AttributeSchema), {}),
});
type JournalLine = z.infer<typeof JournalLineSchema>;

/** The queue name of a queue URL (`…/<account>/<name>`). */
const queueName = (url: unknown): string | undefined =>
  typeof url === 'string' ? url.split('/').filter(Boolean).at(-1) : undefined;

/** A message a producer asked to queue, before the queue's answer; `id` is its batch entry id. */
type Requested = Omit<JournalLine, 'messageId'> & { readonly id: string | undefined };

/** The messages a `SendMessage` or `SendMessageBatch` request carries (JSON protocol). */
const requestedMessages = (target: string, body: Buffer): Requested[] => {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [];
  }
  const queue = queueName(input.QueueUrl);
  if (queue === undefined) return [];
  const entries =
    target === 'AmazonSQS.SendMessage'
      ? [input]
      : Array.isArray(input.Entries)
        ? (input.Entries as Record<string, unknown>[])
        : [];
  return entries.flatMap((entry) => {
    const parsed = z.omit(JournalLineSchema, { messageId: true }).safeParse({
      queue,
      body: entry.MessageBody,
      ...(typeof entry.DelaySeconds === 'number' ? { delaySeconds: entry.DelaySeconds } : {}),
      attributes: entry.MessageAttributes ?? {},
    });
    const id = target === 'AmazonSQS.SendMessage' ? undefined : String(entry.Id);
    return parsed.success ? [{ ...parsed.data, id }] : [];
  });
};

const AnswerSchema = z.union([
  z.object({ MessageId: z.string().check(z.minLength(1)) }),
  z.object({
    Successful: z._default(
      z.array(z.object({ Id: z.string(), MessageId: z.string().check(z.minLength(1)) })),
      [],
    ),
  }),
]);

/**
 * The requested messages the queue accepted, with their message ids, read from its answer to
 * the request; `undefined` when an answer of success cannot be read (nothing is known, then).
 */
const acceptedMessages = (
  requested: readonly Requested[],
  status: number,
  answer: Buffer,
): JournalLine[] | undefined => {
  if (status !== 200) return [];
  let parsed: z.infer<typeof AnswerSchema>;
  try {
    parsed = AnswerSchema.parse(JSON.parse(answer.toString('utf8')));
  } catch {
    return undefined;
  }
  const ids =
    'MessageId' in parsed
      ? new Map([[undefined, parsed.MessageId]])
      : new Map<string | undefined, string>(
          parsed.Successful.map((entry) => [entry.Id, entry.MessageId]),
        );
  return requested.flatMap(({ id, ...message }) => {
    const messageId = ids.get(id);
    return messageId === undefined ? [] : [{ ...message, messageId }];
  });
};

/** What makes two queued messages the same send: their cliKeys, or the body when it names none. */
export const sendIdentity = (line: Pick<JournalLine, 'queue' | 'body'>): string => {
  try {
    const message = JSON.parse(line.body) as {
      cliKey?: unknown;
      recvInfoLst?: Array<{ cliKey?: unknown }>;
    };
    const cliKeys = [
      ...(typeof message.cliKey === 'string' ? [message.cliKey] : []),
      ...(Array.isArray(message.recvInfoLst)
        ? message.recvInfoLst.flatMap((r) => (typeof r?.cliKey === 'string' ? [r.cliKey] : []))
        : []),
    ].sort();
    if (cliKeys.length > 0) return `${line.queue}\u0000${cliKeys.join('\u0000')}`;
  } catch {
    // not JSON: the body itself
  }
  return `${line.queue}\u0000${line.body}`;
};

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

export interface SendJournal {
  /** The proxy's address: the SQS endpoint producers are given. */
  readonly url: string;
  /** Rewrites the journal as what the queues hold now. */
  compact(): Promise<void>;
  /** Stops the proxy; the journal stays (see {@link removeSendJournal}). */
  close(): Promise<void>;
}

/**
 * Starts the journaling proxy in front of fauxqs at `upstream`, compacting the journal of `queues`
 * every `compactEveryMs`.
 */
export const startSendJournal = async (options: {
  readonly upstream: string;
  readonly dataDir: string;
  readonly queues: InspectableQueues;
  readonly queueNames: readonly string[];
  readonly compactEveryMs?: number;
}): Promise<SendJournal> => {
  const path = join(options.dataDir, SEND_JOURNAL_FILE);
  const upstream = new URL(options.upstream);
  // One writer at a time: appends and compactions never interleave.
  let writing: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const next = writing.then(task, task);
    writing = next.catch(() => undefined);
    return next;
  };
  const append = (lines: readonly JournalLine[]) =>
    serially(async () => {
      const handle = await open(path, 'a', 0o600);
      try {
        await handle.writeFile(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
        await handle.datasync();
      } finally {
        await handle.close();
      }
    });

  const forward = (request: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>(
      (resolve, reject) => {
        const outgoing = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: request.method,
            path: request.url,
            headers: { ...request.headers, host: upstream.host },
          },
          (response) => {
            readBody(response).then(
              (answer) =>
                resolve({
                  status: response.statusCode ?? 502,
                  headers: response.headers,
                  body: answer,
                }),
              reject,
            );
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      },
    );

  const server: Server = createServer((request, response) => {
    void (async () => {
      try {
        const body = await readBody(request);
        const target = String(request.headers['x-amz-target'] ?? '');
        const requested =
          target === 'AmazonSQS.SendMessage' || target === 'AmazonSQS.SendMessageBatch'
            ? requestedMessages(target, body)
            : [];
        const answer = await forward(request, body);
        if (requested.length > 0) {
          const accepted = acceptedMessages(requested, answer.status, answer.body);
          // Not knowing what was accepted, the producer is not told it was: it sends again, and
          // a copy the queue already had is absorbed by the sender's cliKey dedupe.
          if (accepted === undefined) throw new Error('its answer to a send could not be read');
          // On disk after the queue took them and before the producer hears it did: what the
          // journal holds is exactly what a producer was told was accepted.
          if (accepted.length > 0) await append(accepted);
        }
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      } catch (error) {
        if (!response.headersSent) {
          response.writeHead(502, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ message: `the send was not confirmed: ${String(error)}` }));
        } else response.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  const compact = () =>
    serially(async () => {
      const lines: JournalLine[] = Object.entries(
        queuedMessages(options.queues, options.queueNames),
      ).flatMap(([queue, messages]) => messages.map((message) => ({ queue, ...message })));
      const handle = await open(`${path}.tmp`, 'w', 0o600);
      try {
        await handle.writeFile(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(`${path}.tmp`, path);
    });

  const timer = setInterval(() => {
    compact().catch((error: unknown) =>
      console.error('could not compact the send journal:', error),
    );
  }, options.compactEveryMs ?? 5_000);
  timer.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    compact,
    close: async () => {
      clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Producers' keep-alive connections would hold the close open: end the idle ones now.
      server.closeIdleConnections();
      await closed;
      await writing;
    },
  };
};

/** Removes the journal, once the clean-stop snapshot holds what the queues held. */
export const removeSendJournal = (dataDir: string): Promise<void> =>
  rm(join(dataDir, SEND_JOURNAL_FILE), { force: true });

/** The sends of the clean-stop snapshot (`send-queues.json`), before it is put back. */
export const snapshotSends = async (dataDir: string): Promise<Set<string>> => {
  const text = await readFile(join(dataDir, QUEUE_SNAPSHOT_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return new Set();
  const snapshot = z
    .catch(z.record(z.string(), z.array(z.looseObject({ body: z.string() }))), {})
    .parse(JSON.parse(text));
  return new Set(
    Object.entries(snapshot).flatMap(([queue, messages]) =>
      messages.map((message) => sendIdentity({ queue, body: message.body })),
    ),
  );
};

/** A journal line a replay did not put back: its number (from 1) and why. */
export interface SkippedJournalLine {
  readonly line: number;
  readonly reason: string;
}

/**
 * Puts the journal's messages back on their queues (by name → URL), except those whose send is
 * in `already` (put back from the clean-stop snapshot), each send once. A line that cannot be
 * read, names no known queue or is refused by the queue is skipped, reported and kept in
 * `send-journal-skipped.jsonl`; the lines after it are put back all the same.
 * @returns how many messages were put back, per queue, and the lines skipped
 */
export const replaySendJournal = async (
  sqs: SQSClient,
  urls: Readonly<Record<string, string>>,
  dataDir: string,
  already: ReadonlySet<string> = new Set(),
): Promise<{ replayed: Record<string, number>; skipped: SkippedJournalLine[] }> => {
  const text = await readFile(join(dataDir, SEND_JOURNAL_FILE), 'utf8').catch(() => '');
  const seen = new Set(already);
  const replayed: Record<string, number> = {};
  const skipped: Array<SkippedJournalLine & { readonly text: string }> = [];
  for (const [index, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    const skip = (reason: string) => skipped.push({ line: index + 1, reason, text: raw });
    let line: JournalLine;
    try {
      line = JournalLineSchema.parse(JSON.parse(raw));
    } catch (error) {
      // A write cut off by the crash (its producer was never answered), or a line of another
      // shape: the lines after it are still sends a producer was told were accepted.
      skip(
        `not readable as a journal line (${error instanceof SyntaxError ? 'not JSON' : 'not a queued message'})`,
      );
      continue;
    }
    const identity = sendIdentity(line);
    const url = urls[line.queue];
    if (url === undefined) {
      skip(`no queue named ${line.queue} in this run`);
      continue;
    }
    if (seen.has(identity)) continue;
    seen.add(identity);
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: line.body,
          DelaySeconds: line.delaySeconds,
          MessageAttributes: toSdkAttributes(line.attributes),
        }),
      );
    } catch (error) {
      skip(
        `the queue refused it: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
      continue;
    }
    replayed[line.queue] = (replayed[line.queue] ?? 0) + 1;
  }
  if (skipped.length > 0) {
    const at = new Date().toISOString();
    await appendFile(
      join(dataDir, SEND_JOURNAL_SKIPPED_FILE),
      skipped.map((entry) => `${JSON.stringify({ at, ...entry })}\n`).join(''),
      { mode: 0o600 },
    );
  }
  return { replayed, skipped: skipped.map(({ line, reason }) => ({ line, reason })) };
};
