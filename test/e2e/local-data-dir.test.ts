/**
 * `npm start`'s data directory across a crash, as a user runs it (bin/start.ts in its own process
 * group, under the usual umask 022):
 *
 * - the send journal a killed run left is put back whole: a line the queue refuses or that was
 *   cut off in the middle of it is reported and skipped, and every accepted send after it is
 *   still sent (docs/reliability.md, "The local run across a crash");
 * - nobody but the owner reads what the directory holds (recipients, texts, the webhook secret):
 *   the directory is 0700, even when it was wider before, and every file in it 0600, DynamoDB
 *   Local's database included.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { localClientConfig } from '../../local/dynamodb-local.ts';
import { SEND_JOURNAL_FILE } from '../../local/send-journal.ts';
import { localStartEnv, type RunningChild as Run, runningChild } from '../support/child-runs.ts';
import { scanItems } from '../support/scan-items.ts';

const ROOT = join(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-datadir-'));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-(child.pid as number), 'SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm start` on the data directory under umask 022, in its own process group. */
const start = (): Run => {
  const child = spawn(
    '/bin/sh',
    ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, '--import', 'tsx', 'bin/start.ts'],
    {
      cwd: ROOT,
      detached: true,
      env: localStartEnv(dataDir, 'datadir-secret-0123456789'),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  return runningChild(child);
};

const until = async (condition: () => boolean | Promise<boolean>, what: string, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

const running = async (run: Run) => {
  await until(
    () => {
      if (run.child.exitCode !== null) throw new Error(`exited early:\n${run.output()}`);
      return run.output().includes('msgbridge is running locally');
    },
    'msgbridge is running locally',
    150_000,
  );
  return JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')) as {
    sqs: string;
    sendQueue: string;
    dynamodb: string;
    tables: { events: string };
  };
};

/** Every file and directory under the data directory (itself included) with its mode. */
const modes = (dir = dataDir, into: Record<string, string> = {}): Record<string, string> => {
  into[dir === dataDir ? '.' : dir.slice(dataDir.length + 1)] = (
    statSync(dir).mode & 0o777
  ).toString(8);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) modes(path, into);
    else into[path.slice(dataDir.length + 1)] = (statSync(path).mode & 0o777).toString(8);
  }
  return into;
};

/** The paths whose mode lets anyone but the owner in. */
const widerThanOwner = (all: Record<string, string>) =>
  Object.entries(all)
    .filter(([, mode]) => (Number.parseInt(mode, 8) & 0o077) !== 0)
    .map(([path, mode]) => `${path} ${mode}`);

const message = (cliKey: string, text = `journal test ${cliKey}`) =>
  JSON.stringify({
    channel: 'sms',
    callback: '0212345678',
    msg: text,
    recvInfoLst: [{ cliKey, phone: '01000000001' }],
  });

describe('npm start and its data directory', () => {
  let second: Run;
  let bridge: Awaited<ReturnType<typeof running>>;

  it('sends every accepted send of the journal a killed run left, past the lines it cannot put back', async () => {
    // Prepare: a run killed with SIGKILL, and the journal it left as the proxy used to leave it
    // when killed between journaling a body and the queue's answer: a body the queue refuses
    // (a control character), a write cut off by the kill, and accepted sends after them.
    const first = start();
    const { sendQueue } = await running(first);
    process.kill(-(first.child.pid as number), 'SIGKILL');
    await first.exited;
    const queue = sendQueue.split('/').at(-1) as string;
    const line = (body: string, n: number) =>
      JSON.stringify({ queue, body, messageId: `killed-run-${n}`, attributes: {} });
    await writeFile(
      join(dataDir, SEND_JOURNAL_FILE),
      [
        line(message('journal-a'), 1),
        line(`${message('journal-refused')}\u0001`, 2),
        '{"queue":"msgbridge-sendpipelinesendqueue","body":"{\\"channel\\":\\"sms\\",\\"cal',
        line(message('journal-b'), 4),
        line(message('journal-c'), 5),
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    // What an earlier run left wider than it should be: the directory and the database file.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'), 0o644);

    // Act: the next start on the same directory.
    second = start();
    bridge = await running(second);
    const documents = DynamoDBDocumentClient.from(
      new DynamoDBClient(localClientConfig(bridge.dynamodb)),
    );
    const accepted = async () =>
      new Set(
        (await scanItems(documents, bridge.tables.events)).flatMap((item) =>
          Object.keys(item).flatMap((name) =>
            name.startsWith('accepted#') ? [name.slice('accepted#'.length)] : [],
          ),
        ),
      );
    const sent = ['journal-a', 'journal-b', 'journal-c'];
    await until(
      async () => {
        const now = await accepted();
        return sent.every((cliKey) => now.has(cliKey));
      },
      `${sent.join(', ')} accepted by the gateway\n${second.output()}`,
      60_000,
    ).catch(() => undefined);
    const gateway = await accepted();

    // Assess
    expect(second.output()).toMatch(
      /recovered 3 message\(s\) of msgbridge-sendpipelinesendqueue\w+ that a stopped run had accepted/,
    );
    expect(second.output()).toMatch(
      /skipped line 2 of send-journal\.jsonl: the queue refused it: \S*InvalidMessageContents/,
    );
    expect(second.output()).toMatch(/skipped line 3 of send-journal\.jsonl: not readable/);
    expect(sent.filter((cliKey) => !gateway.has(cliKey))).toEqual([]);
    expect(gateway.has('journal-refused')).toBe(false);
  });

  it('keeps the directory and every file in it to its owner, under umask 022', async () => {
    // Prepare: a send journaled through bridge.json's endpoint, one waiting at the stop (so the
    // clean-stop snapshot is written), and the events of the replayed sends in events.jsonl.
    const sqs = new SQSClient(localClientConfig(bridge.sqs));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: bridge.sendQueue,
        MessageBody: message('journal-waiting', '01000000002 waits'),
        DelaySeconds: 900,
      }),
    );
    sqs.destroy();
    await until(
      () => readdirSync(dataDir).includes('events.jsonl'),
      'events.jsonl written',
      60_000,
    );

    // Act
    const whileRunning = modes();
    second.child.kill('SIGINT');
    const code = await second.exited;
    const afterStop = modes();

    // Assess: the files that hold recipients and texts are there, and nothing is wider than 0700
    // or 0600.
    expect(code).toBe(0);
    expect(Object.keys(whileRunning)).toEqual(
      expect.arrayContaining([
        'bridge.json',
        'run.lock',
        'events.jsonl',
        SEND_JOURNAL_FILE,
        'send-journal-skipped.jsonl',
        'dynamodb',
        'dynamodb/shared-local-instance.db',
      ]),
    );
    expect(Object.keys(afterStop)).toContain('send-queues.json');
    expect(widerThanOwner(whileRunning)).toEqual([]);
    expect(widerThanOwner(afterStop)).toEqual([]);
    expect(whileRunning['.']).toBe('700');
    expect(whileRunning['events.jsonl']).toBe('600');
    expect(whileRunning['dynamodb/shared-local-instance.db']).toBe('600');
  });
});
