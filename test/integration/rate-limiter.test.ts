import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoDbRateLimiter,
  DynamoDbRateWindowStore,
  rateWindowKey,
} from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import type { RateLimiterStats } from '../../functions/sending/rate-limiter.ts';
import { startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { sendThroughLimiter } from '../support/limited-send.ts';
import { useQuotaSimulator } from '../support/simulator-gateway-client.ts';

const QUOTA = 50;
const SENDERS = 4;
const RECIPIENTS_PER_CALL = 10;
const credentials = { apiKey: 'test-key', apiPassword: 'rate-limit-password' };

const quota = useQuotaSimulator(credentials, QUOTA);

interface Call {
  readonly window: number;
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly accepted: number;
}

interface Run {
  readonly firstSecond: number;
  readonly seconds: number;
  readonly calls: readonly Call[];
  readonly rateLimited: number;
  readonly stats: readonly RateLimiterStats[];
  /** Recipients the simulator says it accepted during the run. */
  readonly simulatorAccepted: number;
}

/**
 * `SENDERS` concurrent senders, each with its own limiter on the shared table as separate Lambda
 * containers would have, each looping "acquire 10, send an SMS to 10" until its deadline, for
 * `seconds` whole calendar seconds starting at the next second boundary.
 */
const runSenders = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  seconds: number,
): Promise<Run> => {
  const firstSecond = Math.floor(Date.now() / 1000) + 1;
  await sleep(firstSecond * 1000 - Date.now());
  // Nothing may be reserved in the window that opens at the end of the run.
  const deadline = (firstSecond + seconds) * 1000 - 1;
  const before = quota.sim.snapshot();
  const calls: Call[] = [];
  let rateLimited = 0;

  const sender = async (): Promise<RateLimiterStats> => {
    const limiter = new DynamoDbRateLimiter(tableName, { quota: QUOTA }, documents);
    // Bounded even if the limiter misbehaved: a quota of 50 allows 5 calls per second in all.
    for (let call = 0; call < 5 * seconds + 1; call += 1) {
      const sent = await sendThroughLimiter(limiter, quota.gateway, RECIPIENTS_PER_CALL, deadline);
      if (sent.kind === 'out-of-time') break;
      if (sent.kind === 'rate-limited') rateLimited += 1;
      else {
        const { window, sentAt, answeredAt, accepted } = sent;
        calls.push({ window, sentAt, answeredAt, accepted });
      }
    }
    return limiter.stats;
  };

  const stats = await Promise.all(Array.from({ length: SENDERS }, sender));
  const simulatorAccepted = quota.sim.snapshot().recipientsAccepted - before.recipientsAccepted;
  return { firstSecond, seconds, calls, rateLimited, stats, simulatorAccepted };
};

/**
 * Recipients accepted per calendar second of the run. A call is accepted at some instant between
 * sending and its answer; every call here is expected to fall within one second, and any call
 * that does not is returned in `ambiguous` rather than guessed.
 */
const acceptedPerSecond = (run: Run) => {
  const series = Array.from({ length: run.seconds }, () => 0);
  const ambiguous: Call[] = [];
  for (const call of run.calls) {
    const second = Math.floor(call.sentAt / 1000);
    if (Math.floor(call.answeredAt / 1000) !== second) ambiguous.push(call);
    const index = second - run.firstSecond;
    series[index] = (series[index] ?? 0) + call.accepted;
  }
  return { series, ambiguous };
};

const summary = (run: Run) => {
  const total = <K extends keyof RateLimiterStats>(key: K) =>
    run.stats.reduce((sum, stats) => sum + stats[key], 0);
  return {
    attempts: total('attempts'),
    reserved: total('reserved'),
    recipients: total('recipients'),
    waits: total('waits'),
    givenBack: total('givenBack'),
    abandoned: total('abandoned'),
    writesPerRecipient: total('attempts') / total('recipients'),
    longestCallMs: Math.max(...run.calls.map((call) => call.answeredAt - call.sentAt)),
    latestSendInWindowMs: Math.max(...run.calls.map((call) => call.sentAt - call.window * 1000)),
  };
};

const assertWithinQuota = (run: Run): number[] => {
  const { series, ambiguous } = acceptedPerSecond(run);
  const accepted = series.reduce((sum, count) => sum + count, 0);
  console.log(
    `rate limiter, ${run.seconds} s, quota ${QUOTA}/s: per second [${series.join(', ')}], ` +
      `utilisation ${((accepted / (QUOTA * run.seconds)) * 100).toFixed(1)} %, ` +
      JSON.stringify(summary(run)),
  );

  // The gateway's own count: it answers 29002 to any call that does not fit in its second.
  expect(run.rateLimited).toBe(0);
  // Every call was sent in the window it reserved, before the guard, and answered in that second.
  for (const call of run.calls) {
    expect(Math.floor(call.sentAt / 1000)).toBe(call.window);
    expect(call.sentAt - call.window * 1000).toBeLessThan(1000 - 50);
  }
  expect(ambiguous).toEqual([]);
  // Everything the simulator accepted is in the series, and nothing else.
  expect(accepted).toBe(run.simulatorAccepted);
  // Never above the quota in any second, and at least 90 % of it used over the run.
  expect(Math.max(...series)).toBeLessThanOrEqual(QUOTA);
  expect(accepted).toBeGreaterThanOrEqual(0.9 * QUOTA * run.seconds);
  return series;
};

/** The conditional `ADD` on a real DynamoDB implementation fills a window exactly to the quota. */
const assertWindowSemantics = async (documents: DynamoDBDocumentClient, tableName: string) => {
  const store = new DynamoDbRateWindowStore(tableName, documents);
  const window = 1_000_000_000;
  const sizes = [10, 10, 10, 10, 9, 2, 1, 1];
  const answers: boolean[] = [];
  for (const size of sizes) answers.push(await store.tryReserve(window, size, QUOTA));
  const { Item } = await documents.send(
    new GetCommand({ TableName: tableName, Key: { pk: rateWindowKey(window) } }),
  );
  expect(answers).toEqual([true, true, true, true, true, false, true, false]);
  expect(Item).toEqual({ pk: 'RATE#1000000000', used: 50, expiresAt: window + 300 });
  // A reservation given back is free again, and a window never goes below zero.
  await store.giveBack(window, 10);
  expect(await store.tryReserve(window, 10, QUOTA)).toBe(true);
  expect(await store.tryReserve(window, 1, QUOTA)).toBe(false);
  await expect(store.giveBack(window + 1, 1)).rejects.toThrow();
};

const setUpTables = async (client: DynamoDBClient) => {
  const names = { eventTable: 'event-table', stateTable: 'state-table' };
  await createTables(client, names);
  const documents = DynamoDBDocumentClient.from(client);
  return { documents, tableName: names.stateTable };
};

/** The DynamoDB-protocol servers the limiter runs on, and how long the senders run on each. */
const servers = [
  { name: 'dynalite', start: startDynalite, seconds: 10, timeoutMs: 20_000 },
  { name: 'DynamoDB Local', start: startDynamoDbLocal, seconds: 2, timeoutMs: 10_000 },
];

for (const server of servers) {
  describe(`the TPS quota on ${server.name}, against the simulator`, () => {
    let stop: () => Promise<void> = async () => undefined;
    let documents: DynamoDBDocumentClient;
    let tableName: string;

    beforeAll(async () => {
      const started = await server.start();
      stop = started.stop;
      ({ documents, tableName } = await setUpTables(localDynamoDbClient(started.endpoint)));
    });

    afterAll(() => stop());

    it('fills a window exactly to the quota with conditional adds', async () => {
      await assertWindowSemantics(documents, tableName);
    });

    it(
      `keeps 4 concurrent senders within 50 recipients/s for ${server.seconds} s and uses at least 90 %`,
      async () => {
        // Act
        const run = await runSenders(documents, tableName, server.seconds);

        // Assess
        assertWithinQuota(run);
      },
      server.timeoutMs,
    );
  });
}
