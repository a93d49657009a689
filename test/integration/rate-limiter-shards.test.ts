import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoDbRateLimiter,
  DynamoDbRateWindowStore,
  rateWindowKey,
} from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import { shardCapacities } from '../../functions/sending/rate-limiter.ts';
import { startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { mulberry32 } from '../../simulator/prng.ts';
import { sendThroughLimiter } from '../support/limited-send.ts';
import { useQuotaSimulator } from '../support/simulator-gateway-client.ts';

/** 1,200 recipients/s: three shards of 400 with the default 400 recipients per shard. */
const LARGE_QUOTA = 1_200;
/**
 * The senders' run: 150 recipients/s over shards of at most 50, also three shards, so that a few
 * senders on a shared test machine fill every second (1,200/s would need hundreds of calls a
 * second through the simulator).
 */
const QUOTA = 150;
const RECIPIENTS_PER_SHARD = 50;
const SHARDS = shardCapacities(QUOTA, { recipientsPerShard: RECIPIENTS_PER_SHARD });
/** Containers (one limiter each) and the concurrent senders in each. */
const CONTAINERS = 4;
const SENDERS_PER_CONTAINER = 3;
const credentials = { apiKey: 'test-key', apiPassword: 'rate-shards-password' };

const quota = useQuotaSimulator(credentials, QUOTA);

/** Each shard of a second holds its share exactly, and a request never spills into another. */
const assertShardSemantics = async (documents: DynamoDBDocumentClient, tableName: string) => {
  const store = new DynamoDbRateWindowStore(tableName, documents);
  const window = 1_000_000_000;
  const shards = shardCapacities(LARGE_QUOTA);
  expect(shards).toEqual([400, 400, 400]);
  for (const [shard, capacity] of shards.entries()) {
    const answers: boolean[] = [];
    for (let i = 0; i < 39; i += 1)
      answers.push(await store.tryReserve(window, 10, capacity, shard));
    answers.push(await store.tryReserve(window, 9, capacity, shard));
    answers.push(await store.tryReserve(window, 2, capacity, shard));
    answers.push(await store.tryReserve(window, 1, capacity, shard));
    answers.push(await store.tryReserve(window, 1, capacity, shard));
    expect(answers).toEqual([...Array.from({ length: 40 }, () => true), false, true, false]);
    const { Item } = await documents.send(
      new GetCommand({ TableName: tableName, Key: { pk: rateWindowKey(window, shard) } }),
    );
    expect(Item).toEqual({ pk: `RATE#1000000000#${shard}`, used: 400, expiresAt: window + 300 });
  }
  // A give-back frees room in its own shard only; no item was written under the unsplit key.
  await store.giveBack(window, 10, 1);
  expect(await store.tryReserve(window, 10, 400, 0)).toBe(false);
  expect(await store.tryReserve(window, 10, 400, 1)).toBe(true);
  const unsplit = await documents.send(
    new GetCommand({ TableName: tableName, Key: { pk: rateWindowKey(window) } }),
  );
  expect(unsplit.Item).toBeUndefined();
};

interface Call {
  readonly window: number;
  readonly sentAt: number;
  readonly recipients: number;
  readonly accepted: number;
}

/**
 * `CONTAINERS` limiters on the shared table, each used by `SENDERS_PER_CONTAINER` concurrent
 * senders looping "acquire n, send an SMS to n" (n of 1–10, seeded) until the deadline, for
 * `seconds` whole calendar seconds from the next second boundary.
 */
const runSenders = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  seconds: number,
) => {
  const firstSecond = Math.floor(Date.now() / 1000) + 1;
  await sleep(firstSecond * 1000 - Date.now());
  const deadline = (firstSecond + seconds) * 1000 - 1;
  const before = quota.sim.snapshot();
  const random = mulberry32(16);
  const calls: Call[] = [];
  let rateLimited = 0;
  const container = async () => {
    const limiter = new DynamoDbRateLimiter(
      tableName,
      { quota: QUOTA, recipientsPerShard: RECIPIENTS_PER_SHARD, guardMs: 100 },
      documents,
    );
    expect(limiter.shards).toEqual([50, 50, 50]);
    const sender = async () => {
      // Bounded even if the limiter misbehaved: the quota allows 150 one-recipient calls a second.
      for (let call = 0; call < QUOTA * seconds + 1; call += 1) {
        const recipients = 1 + Math.floor(random() * 10);
        const sent = await sendThroughLimiter(limiter, quota.gateway, recipients, deadline);
        if (sent.kind === 'out-of-time') return;
        if (sent.kind === 'rate-limited') rateLimited += 1;
        else
          calls.push({
            window: sent.window,
            sentAt: sent.sentAt,
            recipients,
            accepted: sent.accepted,
          });
      }
    };
    await Promise.all(Array.from({ length: SENDERS_PER_CONTAINER }, sender));
    return limiter.stats;
  };
  const stats = await Promise.all(Array.from({ length: CONTAINERS }, container));
  const simulatorAccepted = quota.sim.snapshot().recipientsAccepted - before.recipientsAccepted;
  return { firstSecond, seconds, calls, rateLimited, stats, simulatorAccepted };
};

type Run = Awaited<ReturnType<typeof runSenders>>;

const assertWithinQuota = async (
  run: Run,
  documents: DynamoDBDocumentClient,
  tableName: string,
) => {
  const series = Array.from({ length: run.seconds }, () => 0);
  const granted = Array.from({ length: run.seconds }, () => 0);
  for (const call of run.calls) {
    const index = Math.floor(call.sentAt / 1000) - run.firstSecond;
    series[index] = (series[index] ?? 0) + call.accepted;
    granted[call.window - run.firstSecond] =
      (granted[call.window - run.firstSecond] ?? 0) + call.recipients;
  }
  const accepted = series.reduce((sum, count) => sum + count, 0);
  const total = (key: 'attempts' | 'reserved' | 'givenBack' | 'abandoned' | 'waits') =>
    run.stats.reduce((sum, stats) => sum + stats[key], 0);
  console.log(
    `rate limiter, ${SHARDS.length} shards, ${run.seconds} s, quota ${QUOTA}/s: per second [${series.join(', ')}], ` +
      `utilisation ${((accepted / (QUOTA * run.seconds)) * 100).toFixed(1)} %, ` +
      JSON.stringify({
        calls: run.calls.length,
        attempts: total('attempts'),
        reserved: total('reserved'),
        waits: total('waits'),
        givenBack: total('givenBack'),
        abandoned: total('abandoned'),
      }),
  );

  // The gateway's own count: no call was refused for exceeding the quota in its second. (On a
  // loaded machine a call may be answered in the next second; the simulator counts it on arrival.)
  expect(run.rateLimited).toBe(0);
  for (const call of run.calls) expect(Math.floor(call.sentAt / 1000)).toBe(call.window);
  expect(accepted).toBe(run.simulatorAccepted);
  expect(Math.max(...series)).toBeLessThanOrEqual(QUOTA);
  expect(accepted).toBeGreaterThanOrEqual(0.9 * QUOTA * run.seconds);
  // The table agrees: per second, each shard within its share, and the shards together hold
  // exactly what the senders were granted (nothing abandoned, nothing under the unsplit key).
  expect(total('abandoned')).toBe(0);
  for (let index = 0; index < run.seconds; index += 1) {
    const window = run.firstSecond + index;
    const used = await Promise.all(
      [undefined, ...SHARDS.keys()].map(async (shard) => {
        const { Item } = await documents.send(
          new GetCommand({ TableName: tableName, Key: { pk: rateWindowKey(window, shard) } }),
        );
        return Number(Item?.used ?? 0);
      }),
    );
    const [unsplit, ...shards] = used;
    expect(unsplit).toBe(0);
    for (const [shard, count] of shards.entries())
      expect(count).toBeLessThanOrEqual(SHARDS[shard] ?? 0);
    expect(shards.reduce((sum, count) => sum + count, 0)).toBe(granted[index]);
  }
};

const servers = [
  { name: 'dynalite', start: startDynalite, seconds: 4, timeoutMs: 30_000 },
  { name: 'DynamoDB Local', start: startDynamoDbLocal, seconds: 2, timeoutMs: 20_000 },
];

for (const server of servers) {
  describe(`a quota split over ${SHARDS.length} shards on ${server.name}, against the simulator`, () => {
    let stop: () => Promise<void> = async () => undefined;
    let documents: DynamoDBDocumentClient;
    const tableName = 'state-table';

    beforeAll(async () => {
      const started = await server.start();
      stop = started.stop;
      const client = localDynamoDbClient(started.endpoint);
      await createTables(client, { eventTable: 'event-table', stateTable: tableName });
      documents = DynamoDBDocumentClient.from(client);
    });

    afterAll(() => stop());

    it('fills each shard exactly to its share with conditional adds', async () => {
      await assertShardSemantics(documents, tableName);
    });

    it(
      `keeps ${CONTAINERS * SENDERS_PER_CONTAINER} senders in ${CONTAINERS} containers within ${QUOTA} recipients/s for ${server.seconds} s and uses at least 90 %`,
      async () => {
        const run = await runSenders(documents, tableName, server.seconds);

        await assertWithinQuota(run, documents, tableName);
      },
      server.timeoutMs,
    );
  });
}
