/**
 * The local run remembers across a restart: DynamoDB Local keeps its tables under the data
 * directory, so a report delivered again after `npm start` was stopped and started is recognised
 * as a duplicate, and the publisher resumes the table's stream where it left off — neither
 * publishing the last run's records again nor skipping a record stored just before the stop.
 */
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reportBody, reportItem } from '../../fixtures/gateway-bodies.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

const run = namedLocalRun('restart');
const { dataDir } = run;
const _SECRET = run.webhookSecret;
let bridge: LocalBridge | undefined;

const start = async () => {
  // A test that failed half-way left its run going: stop it, or two runs would share the files.
  await stop();
  bridge = await startLocalBridge(
    run.options({
      tpsQuota: 100,
      persistTables: true,
      simulator: { reportDelayMs: 200, failureRate: 0, seed: 5 },
    }),
  );
  return bridge;
};

const stop = async () => {
  await bridge?.stop();
  bridge = undefined;
};

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const postReport = async (running: LocalBridge, body: unknown) => {
  const answer = await fetch(running.urls.reportWebhook, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
};

/** The delivery report events in events.jsonl, the file that outlives every run. */
const reportEvents = async (): Promise<Array<{ msgKey: unknown; id: string }>> => {
  const text = await readFile(join(dataDir, 'events.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .filter((event) => event['detail-type'] === 'Delivery Report Received')
    .map((event) => ({ msgKey: event.detail.data.msgKey, id: event.detail.metadata.id }));
};

const waitFor = async (condition: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

describe('the local run across a restart with the same LOCAL_DATA_DIR', () => {
  it('makes exactly one event of a report delivered before and after the restart', async () => {
    // Prepare: a first run publishes the report.
    const first = await start();
    await postReport(first, reportBody(1, 100));
    await waitFor(async () => (await reportEvents()).length === 1, 30_000);
    await stop();

    // Act: the same data directory, the same report again, and a new one as a control.
    const second = await start();
    await postReport(second, reportBody(1, 100));
    await postReport(second, reportBody(1, 101));
    await waitFor(async () => (await reportEvents()).length >= 2, 30_000);
    await second.publisher.drained();
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // Assess: one event per report; the first run's stream record was not published again.
    const events = await reportEvents();
    expect(events.map((event) => event.msgKey).sort()).toEqual([
      reportItem(100).msgKey,
      reportItem(101).msgKey,
    ]);
    expect(second.publisherFailureCount()).toBe(0);
    await stop();
  });

  it('publishes after the restart a report that was stored but not yet published at the stop', async () => {
    // Prepare: the publisher is stopped first, so the report is stored but has no event yet.
    const first = await start();
    await first.publisher.stop();
    await postReport(first, reportBody(1, 200));
    await stop();
    const before = await reportEvents();
    expect(before.filter((event) => event.msgKey === reportItem(200).msgKey)).toEqual([]);

    // Act
    const second = await start();
    await waitFor(
      async () => (await reportEvents()).some((event) => event.msgKey === reportItem(200).msgKey),
      30_000,
    );
    await second.publisher.drained();
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // Assess: exactly one event for it, and none of the earlier reports came back.
    const events = await reportEvents();
    expect(events.filter((event) => event.msgKey === reportItem(200).msgKey)).toHaveLength(1);
    expect(events).toHaveLength(before.length + 1);
    await stop();
  });
});
