/**
 * `messageStatus` of "Delivery Report Received" through the event store on DynamoDB Local (issue
 * 35, item 7): a report stored after a delivery says `delivered`, also when a lower report read
 * the status just before the delivery raised it, and, in the order the table's stream gives the
 * reports, the statuses of a message never move back however they arrive.
 */
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { eventKeys } from '../../functions/commons/table-keys.ts';
import { DynamoDbEventStore } from '../../functions/events/dynamodb-event-store.ts';
import { storedDetail } from '../../functions/events/stored-detail.ts';
import { type ReceiveDeps, receiveReports } from '../../functions/received-items/receive-items.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createEventTable, local, useDynamoDbLocal } from '../support/dynamodb-local.ts';

useDynamoDbLocal();

const deps = (store: DynamoDbEventStore): ReceiveDeps => ({
  store,
  now: () => new Date(),
  retentionDays: 35,
  concurrency: 8,
});

const report = (msgKey: string, resultCode: string, ch: string) =>
  JSON.stringify({ rptCnt: 1, rptLst: [{ ...reportItem(0, { resultCode, ch }), msgKey }] });

/** The reports of the table in the order its stream gives their inserts. */
const streamedReports = async (streamArn: string) => {
  const { streams } = local();
  const { StreamDescription } = await streams.send(
    new DescribeStreamCommand({ StreamArn: streamArn }),
  );
  const reports: Array<{ msgKey: string; resultCode: string; messageStatus: string }> = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    while (iterator !== undefined) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      for (const record of page.Records ?? []) {
        const image = record.dynamodb?.NewImage;
        if (record.eventName !== 'INSERT' || image === undefined) continue;
        const item = unmarshall(image as never);
        if (item.detailType !== 'Delivery Report Received') continue;
        const { data } = JSON.parse(storedDetail(item) ?? '{}');
        reports.push({
          msgKey: data.msgKey,
          resultCode: data.resultCode,
          messageStatus: data.messageStatus,
        });
      }
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return reports;
};

const RANK: Record<string, number> = { uncertain: 1, failed: 2, delivered: 3 };

describe('messageStatus on DynamoDB Local', () => {
  it('says delivered on a 32114 stored after a 10000, and keeps the status in its own item', async () => {
    // Prepare
    const { eventTable } = await createEventTable();
    const store = new DynamoDbEventStore(eventTable, local().documents);

    // Act
    await receiveReports(report('M-1', '10000', 'MSGR'), deps(store));
    await receiveReports(report('M-1', '32114', 'MSGR'), deps(store));

    // Assess
    const { Item: late } = await local().documents.send(
      new GetCommand({
        TableName: eventTable,
        Key: { pk: eventKeys.report('M-1'), sk: eventKeys.result('32114', 'MSGR') },
      }),
    );
    expect(JSON.parse(storedDetail(late ?? {}) ?? '{}').data).toMatchObject({
      resultCode: '32114',
      delivered: false,
      messageStatus: 'delivered',
    });
    const { Item: status } = await local().documents.send(
      new GetCommand({ TableName: eventTable, Key: eventKeys.messageStatus('M-1') }),
    );
    expect(status).toMatchObject({ messageStatus: 'delivered', statusRank: 3 });
    expect(await store.messageStatus('M-1')).toMatchObject({ state: 'delivered', reports: 2 });
  });

  it('makes a 32114 that read the status before a 10000 raised it read it again when stored after it', async () => {
    // Prepare: the 32114's write waits until the 10000 is stored
    const { eventTable, streamArn } = await createEventTable();
    const documents = DynamoDBDocumentClient.from(localDynamoDbClient(local().server.endpoint), {
      marshallOptions: { removeUndefinedValues: true },
    });
    let release: () => void = () => undefined;
    const delivered = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    documents.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Item?: { sk?: string; detailType?: string } };
        if (!held && input.Item?.detailType !== undefined && input.Item.sk?.includes('32114')) {
          held = true;
          await delivered;
        }
        return next(args);
      },
      { step: 'initialize', name: 'holdUncertainReport' },
    );
    const slow = new DynamoDbEventStore(eventTable, documents);
    const fast = new DynamoDbEventStore(eventTable, local().documents);

    // Act: the 32114 registers (status uncertain) and waits; the 10000 is stored meanwhile
    const uncertain = receiveReports(report('M-2', '32114', 'MSGR'), deps(slow));
    await expect.poll(() => held).toBe(true);
    const delivery = await receiveReports(report('M-2', '10000', 'MSGR'), deps(fast));
    release();
    const late = await uncertain;

    // Assess: stored after the delivery, the 32114 says delivered
    expect(delivery).toMatchObject({ stored: 1 });
    expect(late).toMatchObject({ stored: 1, failed: 0 });
    expect(await streamedReports(streamArn)).toEqual([
      { msgKey: 'M-2', resultCode: '10000', messageStatus: 'delivered' },
      { msgKey: 'M-2', resultCode: '32114', messageStatus: 'delivered' },
    ]);
    const { Item: stored } = await local().documents.send(
      new GetCommand({
        TableName: eventTable,
        Key: { pk: eventKeys.report('M-2'), sk: eventKeys.result('32114', 'MSGR') },
      }),
    );
    expect(stored?.detailType).toBe('Delivery Report Received');
    expect(stored?.blockedBy).toBeUndefined();
  });

  it('never moves a status back, in the order the stream gives, with reports arriving at once', async () => {
    // Prepare: 12 messages, each with a 32114, a failure and a delivery posted at once, in turn
    const { eventTable, streamArn } = await createEventTable();
    const store = new DynamoDbEventStore(eventTable, local().documents);
    const reports = [
      ['32114', 'MSGR'],
      ['32004', 'SMS'],
      ['10000', 'RCS'],
    ] as const;
    const posts = Array.from({ length: 12 }, (_, index) =>
      reports.map((_, n) => {
        const [code, ch] = reports[(n + index) % reports.length] ?? reports[0];
        return report(`M-3-${index}`, code, ch);
      }),
    ).flat();

    // Act
    const outcomes = await Promise.all(posts.map((body) => receiveReports(body, deps(store))));

    // Assess
    expect(outcomes.every((outcome) => outcome.stored === 1)).toBe(true);
    const streamed = await streamedReports(streamArn);
    for (let index = 0; index < 12; index += 1) {
      const mine = streamed.filter((r) => r.msgKey === `M-3-${index}`);
      expect(mine).toHaveLength(3);
      const ranks = mine.map((r) => RANK[r.messageStatus] ?? 0);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const delivery = mine.findIndex((r) => r.resultCode === '10000');
      expect(mine.slice(delivery).every((r) => r.messageStatus === 'delivered')).toBe(true);
    }
  });
});
