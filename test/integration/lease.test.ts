import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLease } from '../../functions/commons/dynamodb-lease.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';

let dynalite: LocalDynalite;
let documents: DynamoDBDocumentClient;
let now = 1_000_000;

beforeAll(async () => {
  dynalite = await startDynalite();
  const client = localDynamoDbClient(dynalite.endpoint);
  await createTables(client, { eventTable: 'events', stateTable: 'state' });
  documents = DynamoDBDocumentClient.from(client);
});

afterAll(async () => {
  await dynalite.stop();
});

describe('DynamoDbLease', () => {
  it('has one holder at a time, taken over only after it expires', async () => {
    const lease = new DynamoDbLease('state', documents, () => now);

    const first = await lease.acquire('poller', 'a', 10_000);
    const second = await lease.acquire('poller', 'b', 10_000);
    const again = await lease.acquire('poller', 'a', 10_000);
    now += 10_001;
    const takeover = await lease.acquire('poller', 'b', 10_000);
    const lost = await lease.renew('poller', 'a', 10_000);

    expect([first, second, again, takeover, lost]).toEqual([true, false, true, true, false]);
  });

  it('lets exactly one of many concurrent acquirers win', async () => {
    const lease = new DynamoDbLease('state', documents, () => now);

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => lease.acquire('crowd', `owner-${i}`, 5_000)),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('is free again at once after its holder releases it, and a stranger cannot release it', async () => {
    const lease = new DynamoDbLease('state', documents, () => now);
    await lease.acquire('job', 'a', 60_000);

    await lease.release('job', 'b');
    const whileHeld = await lease.acquire('job', 'c', 60_000);
    await lease.release('job', 'a');
    const afterRelease = await lease.acquire('job', 'c', 60_000);

    expect(whileHeld).toBe(false);
    expect(afterRelease).toBe(true);
  });
});
