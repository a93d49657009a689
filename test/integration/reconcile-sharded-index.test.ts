/**
 * The sharded `awaiting-report` index on a DynamoDB-protocol table (dynalite) with the gateway
 * simulator: the sender spreads an hour's accepted recipients over the hour's shards, and
 * reconcile-status finds and settles them all, together with entries an earlier release wrote
 * under the plain hour (a deployment upgrades with such entries still waiting).
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  AWAITING_REPORT_SHARDS,
  awaitingReportBucket,
  awaitingReportBuckets,
} from '../../functions/commons/tables.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';
import {
  type ReconcileDeps,
  ReconcileSettingsSchema,
} from '../../functions/reconcile/reconcile-ports.ts';
import { reconcileStatus } from '../../functions/reconcile/reconcile-use-case.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import { awaitingIndexPorts } from '../support/awaiting-index-ports.ts';
import { documents } from '../support/dynalite-documents.ts';
import { useReconcileTables } from '../support/reconcile-tables.ts';
import { sendSms, tableSendDeps } from '../support/table-send.ts';

const credentials = { apiKey: 'shards-key', apiPassword: 'shards-password' };
const MINUTE = 60_000;

const world = useReconcileTables(credentials);

const reconcileDeps = (): ReconcileDeps => {
  const awaiting = new DynamoDbAwaitingReports(
    world.eventTable,
    documents,
    new DynamoDbSendStore(world.eventTable, 1, documents),
  );
  return {
    ...awaitingIndexPorts(awaiting),
    gateway: world.client,
    receive: {
      store: new DynamoDbEventStore(world.eventTable, documents),
      now: world.now,
      retentionDays: 35,
      concurrency: 8,
    },
    now: world.now,
    settings: ReconcileSettingsSchema.parse({ afterMinutes: 30, horizonHours: 96, pageSize: 5 }),
  };
};

const send = async (count: number): Promise<string[]> => {
  const deps = tableSendDeps(world.sendTables, new GatewaySender(world.client), world.now);
  const { result, cliKeys } = await sendSms(count, deps, world.now());
  expect(result).toMatchObject({ kind: 'done', accepted: count });
  return cliKeys;
};

/** Every accepted OUTCOME item: its cliKey and its bucket (absent once settled). */
const outcomes = async () => {
  const answer = await documents.send(
    new ScanCommand({
      TableName: world.eventTable,
      FilterExpression: 'sk = :outcome',
      ExpressionAttributeValues: { ':outcome': 'OUTCOME' },
    }),
  );
  return (answer.Items ?? []).map((item) => ({
    cliKey: String(item.cliKey),
    bucket: item.awaitingReportBucket as string | undefined,
    acceptedAt: String(item.acceptedAt),
  }));
};

/** Lists an accepted OUTCOME item in the index the way an earlier release did: in `bucket`. */
const listAsEarlierRelease = async (cliKey: string, bucket: (acceptedAt: string) => string) => {
  const item = (await outcomes()).find((o) => o.cliKey === cliKey);
  await documents.send(
    new UpdateCommand({
      TableName: world.eventTable,
      Key: { pk: `SEND#${cliKey}`, sk: 'OUTCOME' },
      UpdateExpression: 'SET awaitingReportBucket = :bucket',
      ExpressionAttributeValues: { ':bucket': bucket(item?.acceptedAt ?? '') },
    }),
  );
};

describe('the sharded awaiting-report index of earlier releases', () => {
  it('is read until it empties: reconcile settles every shard and the unsharded bucket', async () => {
    // Prepare: 32 accepted recipients; this release's sender lists none in the index (it queues a
    // report check instead), so their items are listed as earlier releases did: 30 in their
    // cliKey's shard of the hour, 2 in the unsharded hour of the releases before.
    const sharded = [...(await send(10)), ...(await send(10)), ...(await send(10))];
    const legacy = await send(2);
    expect((await outcomes()).filter((o) => o.bucket !== undefined)).toEqual([]);
    for (const cliKey of sharded)
      await listAsEarlierRelease(cliKey, (at) => awaitingReportBucket(at, cliKey));
    for (const cliKey of legacy) await listAsEarlierRelease(cliKey, (at) => at.slice(0, 13));
    const before = await outcomes();
    const hour = before[0]?.acceptedAt.slice(0, 13) ?? '';
    const buckets = new Set(before.map((o) => o.bucket));
    await world.sim.advance(31 * MINUTE);

    // Act
    const result = await reconcileStatus(reconcileDeps());
    const again = await reconcileStatus(reconcileDeps());

    // Assess: many shards used
    expect(buckets.size).toBeGreaterThan(AWAITING_REPORT_SHARDS / 2);
    expect(buckets.has(hour)).toBe(true);
    expect(
      [...buckets].every((b) => b !== undefined && awaitingReportBuckets(hour).includes(b)),
    ).toBe(true);
    // Found, queried and settled, every one
    expect(result).toMatchObject({
      examined: 32,
      reportsReconciled: 32,
      stillPending: 0,
      stoppedBy: 'complete',
    });
    expect(again).toMatchObject({ examined: 0, statusQueries: 0 });
    expect((await outcomes()).filter((o) => o.bucket !== undefined)).toEqual([]);
  });
});
