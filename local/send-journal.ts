/**
 * Sends that survive a crash of the local run. fauxqs keeps its queues in memory only, and the
 * clean-stop snapshot (queue-snapshot.ts) needs a clean stop: a run killed with SIGKILL would lose
 * every message still waiting. So producers reach the queues through this proxy, which appends
 * each `SendMessage` / `SendMessageBatch` to `DIR/send-journal.jsonl` (and waits for the disk)
 * before fauxqs sees it, hence before the producer gets its answer. The next start puts the
 * journal's messages back; the journal is kept short by rewriting it, every few seconds, as what
 * the queues hold then plus what is on its way to them.
 *
 * A message put back that had already been sent is absorbed by the sender's cliKey dedupe (the
 * event table persists across runs), as any SQS redelivery is; a message both in the clean-stop
 * snapshot and in the journal is put back once (by its cliKeys).
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import {
  type InspectableQueues,
  QUEUE_SNAPSHOT_FILE,
  queuedMessages,
  toSdkAttributes,
} from './queue-snapshot.ts';

export const SEND_JOURNAL_FILE = 'send-journal.jsonl';

const AttributeSchema = z.object({
  DataType: z.string(),
  StringValue: z.string().optional(),
  /** Base64, as the JSON protocol carries it. */
  BinaryValue: z.string().optional(),
});

const JournalLineSchema = z.object({
  queue: z.string(),
  body: z.string(),
  delaySeconds: z.number().int().min(0).max(900).optional(),
  attributes: z.record(z.string(), AttributeSchema).default({}),
});
type JournalLine = z.infer<typeof JournalLineSchema>;

/** The queue name of a queue URL (`…/<account>/<name>`). */
const queueName = (url: unknown): string | undefined =>
  typeof url === 'string' ? url.split('/').filter(Boolean).at(-1) : undefined;

/** The messages a `SendMessage` or `SendMessageBatch` request carries (JSON protocol). */
const sentMessages = (target: string, body: Buffer): JournalLine[] => {
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
    const parsed = JournalLineSchema.safeParse({
      queue,
      body: entry.MessageBody,
      ...(typeof entry.DelaySeconds === 'number' ? { delaySeconds: entry.DelaySeconds } : {}),
      attributes: entry.MessageAttributes ?? {},
    });
    return parsed.success ? [parsed.data] : [];
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
  /** Rewrites the journal as what the queues hold now and what is on its way to them. */
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
  /** Journaled and not yet answered by fauxqs: not in any queue yet, so kept by a compaction. */
  const onTheirWay = new Map<string, JournalLine[]>();
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
        const journaled =
          target === 'AmazonSQS.SendMessage' || target === 'AmazonSQS.SendMessageBatch'
            ? sentMessages(target, body)
            : [];
        const id = randomUUID();
        if (journaled.length > 0) {
          // On disk before fauxqs has it, so before the producer hears it was accepted.
          await append(journaled);
          onTheirWay.set(id, journaled);
        }
        try {
          const answer = await forward(request, body);
          response.writeHead(answer.status, answer.headers);
          response.end(answer.body);
        } finally {
          onTheirWay.delete(id);
        }
      } catch (error) {
        if (!response.headersSent) {
          response.writeHead(502, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ message: `the local queues did not answer: ${String(error)}` }),
          );
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
      for (const pending of onTheirWay.values()) lines.push(...pending);
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
    .record(z.string(), z.array(z.object({ body: z.string() }).loose()))
    .catch({})
    .parse(JSON.parse(text));
  return new Set(
    Object.entries(snapshot).flatMap(([queue, messages]) =>
      messages.map((message) => sendIdentity({ queue, body: message.body })),
    ),
  );
};

/**
 * Puts the journal's messages back on their queues (by name → URL), except those whose send is
 * in `already` (put back from the clean-stop snapshot), each send once.
 * @returns how many messages were put back, per queue
 */
export const replaySendJournal = async (
  sqs: SQSClient,
  urls: Readonly<Record<string, string>>,
  dataDir: string,
  already: ReadonlySet<string> = new Set(),
): Promise<Record<string, number>> => {
  const text = await readFile(join(dataDir, SEND_JOURNAL_FILE), 'utf8').catch(() => '');
  const seen = new Set(already);
  const counts: Record<string, number> = {};
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let line: JournalLine;
    try {
      line = JournalLineSchema.parse(JSON.parse(raw));
    } catch {
      continue; // the last line of a crash mid-write: its producer was never answered
    }
    const identity = sendIdentity(line);
    const url = urls[line.queue];
    if (url === undefined || seen.has(identity)) continue;
    seen.add(identity);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: line.body,
        DelaySeconds: line.delaySeconds,
        MessageAttributes: toSdkAttributes(line.attributes),
      }),
    );
    counts[line.queue] = (counts[line.queue] ?? 0) + 1;
  }
  return counts;
};
