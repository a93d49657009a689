/**
 * `npm start` as a user runs it (bin/start.ts in its own process): it writes bridge.json, refuses
 * a second run on the same data directory, survives hostile requests, and on Ctrl+C stops cleanly
 * and removes bridge.json, after which `npm run demo` says that the local run is not running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { localClientConfig } from '../../local/dynamodb-local.ts';
import { NOT_RUNNING } from '../../ops/bridge-file.ts';
import { localStartEnv, type RunningChild as Run, runningChild } from '../support/child-runs.ts';
import { scanItems as scanAll } from '../support/scan-items.ts';

const ROOT = join(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-start-'));
const children: ChildProcess[] = [];
const WAITING = JSON.stringify({ note: 'a send still waiting when the run stops' });

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (script: string, dir = dataDir, env: Record<string, string> = {}): Run => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script)], {
    cwd: ROOT,
    // Its own process group: a crash is simulated by killing the run with all it started.
    detached: true,
    env: localStartEnv(dir, 'start-secret-0123456789', env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return runningChild(child);
};

const waitForOutput = async (running: Run, text: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!running.output().includes(text)) {
    if (running.child.exitCode !== null) throw new Error(`exited early:\n${running.output()}`);
    if (Date.now() > deadline)
      throw new Error(`no "${text}" within ${timeoutMs} ms:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

describe('npm start', () => {
  it('refuses a second run on its data directory, stops on Ctrl+C keeping its data, and starts again with it', async () => {
    // Prepare
    const first = run('bin/start.ts');
    await waitForOutput(first, 'msgbridge is running locally', 150_000);
    const file = join(dataDir, 'bridge.json');
    const bridge = JSON.parse(readFileSync(file, 'utf8')) as {
      reportWebhook: string;
      webhooks: string;
      sqs: string;
      sendQueue: string;
    };
    // A send that is still waiting at the stop (delayed for 15 minutes).
    const sqs = new SQSClient(localClientConfig(bridge.sqs));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: bridge.sendQueue,
        MessageBody: WAITING,
        DelaySeconds: 900,
      }),
    );
    sqs.destroy();

    // Act 1: hostile requests, then a second run on the same directory.
    const malformed = await fetch(`${bridge.webhooks}/webhooks/%E0%A4%A/report`, {
      method: 'POST',
      body: '{}',
    });
    const second = run('bin/start.ts');
    const secondCode = await second.exited;
    const report = await fetch(bridge.reportWebhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rptCnt: 0, rptLst: [] }),
    });

    // The banner names the operator console, on the webhook port.
    const consoleUrl = /^ {2}console {10}(http:\/\/127\.0\.0\.1:\d+\/console) /m.exec(
      first.output(),
    )?.[1];
    const consolePage = await fetch(consoleUrl ?? 'http://127.0.0.1:1/console');

    // Assess 1
    expect(consoleUrl).toBe(`${bridge.webhooks}/console`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('msgbridge console');
    expect(malformed.status).toBe(404);
    expect(secondCode).toBe(1);
    expect(second.output()).toMatch(/another run is using/);
    expect(report.status).toBeLessThan(300);
    expect(existsSync(file)).toBe(true);

    // Act 2
    first.child.kill('SIGINT');
    const firstCode = await first.exited;
    const demo = run('local/demo.ts');
    const demoCode = await demo.exited;

    // Assess 2
    expect(firstCode).toBe(0);
    expect(existsSync(file)).toBe(false);
    // npm start keeps its tables on disk, for the next start (see local-restart.test.ts).
    expect(existsSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'))).toBe(true);
    expect(demoCode).toBe(1);
    expect(demo.output()).toContain(NOT_RUNNING);
    expect(demo.output()).not.toMatch(/^\s+at /m);
    expect(first.output()).toMatch(
      /kept 1 message\(s\) of msgbridge-sendpipelinesendqueue\w+ for the next start/,
    );

    // Act 3: the next start puts the waiting send back on the queue.
    const third = run('bin/start.ts');
    await waitForOutput(third, 'msgbridge is running locally', 150_000);
    const next = JSON.parse(readFileSync(file, 'utf8')) as { sqs: string; sendQueue: string };
    const queueName = next.sendQueue.split('/').at(-1);
    const queue = (await (await fetch(`${next.sqs}/_fauxqs/queues/${queueName}`)).json()) as {
      messages: { delayed: Array<{ body: string }> };
    };
    third.child.kill('SIGINT');
    await third.exited;

    // Assess 3
    expect(third.output()).toMatch(
      /restored 1 message\(s\) of msgbridge-sendpipelinesendqueue\w+ from the last run/,
    );
    expect(queue.messages.delayed.map((message) => message.body)).toEqual([WAITING]);
  }, 360_000);

  it('leaves one run of two started at the same moment on one data directory', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-race-'));
    try {
      // Act: both start before either has written anything.
      const runs = [run('bin/start.ts', dir), run('bin/start.ts', dir)];
      const refused = await Promise.race(
        runs.map(async (each) => ({ each, code: await each.exited })),
      );
      const winner = runs.find((each) => each !== refused.each) as Run;
      await waitForOutput(winner, 'msgbridge is running locally', 150_000);
      const bridge = JSON.parse(readFileSync(join(dir, 'bridge.json'), 'utf8')) as { pid: number };
      const lock = readFileSync(join(dir, 'run.lock'), 'utf8');
      winner.child.kill('SIGINT');
      const winnerCode = await winner.exited;

      // Assess
      expect(refused.code).toBe(1);
      expect(refused.each.output()).toMatch(/another run is using/);
      expect(refused.each.output()).not.toContain('msgbridge is running locally');
      expect(bridge.pid).toBe(winner.child.pid);
      expect(lock).toBe(String(winner.child.pid));
      expect(winnerCode).toBe(0);
      expect(existsSync(join(dir, 'run.lock'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('loses no accepted send when the whole run is killed with SIGKILL', async () => {
    // Prepare: 30 messages of 10 recipients, at 10 recipients a second, then kill -9 3 s later.
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-crash-'));
    const cliKeys = Array.from({ length: 30 }, (_, m) =>
      Array.from({ length: 10 }, (_, r) => `crash-${m}-${r}`),
    );
    try {
      const first = run('bin/start.ts', dir, { TPS_QUOTA: '10' });
      await waitForOutput(first, 'msgbridge is running locally', 150_000);
      const bridge = JSON.parse(readFileSync(join(dir, 'bridge.json'), 'utf8')) as {
        sqs: string;
        sendQueue: string;
        dynamodb: string;
        tables: { events: string };
      };
      const sqs = new SQSClient(localClientConfig(bridge.sqs));
      for (const [m, keys] of cliKeys.entries())
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: bridge.sendQueue,
            MessageBody: JSON.stringify({
              channel: 'sms',
              callback: '0212345678',
              msg: `crash test ${m}`,
              recvInfoLst: keys.map((cliKey, r) => ({
                cliKey,
                phone: `010${String(m * 10 + r).padStart(8, '0')}`,
              })),
            }),
          }),
        );
      sqs.destroy();
      await new Promise((resolve) => setTimeout(resolve, 3_000));

      // Act: the crash, then the next start on the same directory.
      process.kill(-(first.child.pid as number), 'SIGKILL');
      await first.exited;
      const second = run('bin/start.ts', dir, { TPS_QUOTA: '50' });
      await waitForOutput(second, 'msgbridge is running locally', 150_000);
      const documents = DynamoDBDocumentClient.from(
        new DynamoDBClient(
          localClientConfig(JSON.parse(readFileSync(join(dir, 'bridge.json'), 'utf8')).dynamodb),
        ),
      );
      const accepted = async () => {
        const items = await scanAll(documents, bridge.tables.events);
        return new Set(
          items.flatMap((item) =>
            Object.keys(item).flatMap((name) =>
              name.startsWith('accepted#') ? [name.slice(9)] : [],
            ),
          ),
        );
      };
      let sent = await accepted();
      for (let waited = 0; sent.size < 300 && waited < 120_000; waited += 1_000) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        sent = await accepted();
      }
      second.child.kill('SIGINT');
      await second.exited;

      // Assess: every recipient accepted, those the first run had not reached from the journal.
      expect(second.output()).toMatch(
        /recovered \d+ message\(s\) of msgbridge-sendpipelinesendqueue\w+ that a stopped run had accepted/,
      );
      expect([...cliKeys.flat()].filter((cliKey) => !sent.has(cliKey))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 360_000);
});
