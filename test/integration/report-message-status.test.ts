/**
 * `messageStatus` of "Delivery Report Received" on DynamoDB Local (issue 35, item 7): each report
 * is stored with one conditional put saying its own status, and `publish-events`, fed by the
 * table's stream as Lambda's event source feeds it, puts the message's status when it publishes:
 * a 32114 published after a 10000 says `delivered`, and in the order the bus gets a message's
 * reports their statuses never move back, however the reports arrive.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { eventKeys } from '../../functions/commons/table-keys.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import { storedMessageStatus } from '../../functions/publishing/adapters/stored-message-status.ts';
import { type ReceiveDeps, receiveReports } from '../../functions/received-items/receive-items.ts';
import {
  createEventTable,
  local,
  startPublishingPoller,
  useDynamoDbLocal,
} from '../support/dynamodb-local.ts';
import { RecordingBus } from '../support/recording-bus.ts';
import { scanItems } from '../support/scan-items.ts';

useDynamoDbLocal();

const deps = (store: DynamoDbEventStore): ReceiveDeps => ({
  store,
  now: () => new Date(),
  retentionDays: 35,
  concurrency: 8,
});

const report = (msgKey: string, resultCode: string, ch: string) =>
  JSON.stringify({ rptCnt: 1, rptLst: [{ ...reportItem(0, { resultCode, ch }), msgKey }] });

const RANK: Record<string, number> = { uncertain: 1, failed: 2, delivered: 3 };

/** A fresh event table, its store, and publish-events on its stream putting on a recording bus. */
const bridge = async () => {
  const { eventTable, streamArn } = await createEventTable();
  const bus = new RecordingBus();
  const failed: DynamoDBRecord[] = [];
  const poller = startPublishingPoller(local().server, streamArn, {
    publish: {
      bus,
      messageStatus: storedMessageStatus(eventTable, local().documents),
      maxAttempts: 2,
      backoffMs: () => 5,
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
    },
    failed,
  });
  const published = () =>
    bus.details('Delivery Report Received').map(({ data }) => ({
      msgKey: data.msgKey,
      resultCode: data.resultCode,
      messageStatus: data.messageStatus,
    }));
  const store = new DynamoDbEventStore(eventTable, local().documents);
  return {
    eventTable,
    store,
    poller,
    failed,
    published,
    /** Stores a report of `msgKey` on MSGR with `resultCode`, as the report webhook does. */
    receive: (msgKey: string, resultCode: string) =>
      receiveReports(report(msgKey, resultCode, 'MSGR'), deps(store)),
    /** Waits until the poller has published everything stored, stops it, and checks it gave up on no record. */
    drainAndStop: async () => {
      await poller.drained();
      await poller.stop();
      expect(failed).toEqual([]);
    },
  };
};

describe('messageStatus on DynamoDB Local, set by the publisher', () => {
  it('publishes a 32114 stored after a 10000 as delivered; each report stays one item saying its own status', async () => {
    // Prepare
    const { eventTable, store, published, receive, drainAndStop } = await bridge();

    // Act
    await receive('M-1', '10000');
    await receive('M-1', '32114');
    await drainAndStop();

    // Assess: the bus says delivered twice; the table holds the two reports and nothing else
    expect(published()).toEqual([
      { msgKey: 'M-1', resultCode: '10000', messageStatus: 'delivered' },
      { msgKey: 'M-1', resultCode: '32114', messageStatus: 'delivered' },
    ]);
    const { Item: late } = await local().documents.send(
      new GetCommand({
        TableName: eventTable,
        Key: { pk: eventKeys.report('M-1'), sk: eventKeys.result('32114', 'MSGR') },
      }),
    );
    expect(JSON.parse(storedDetail(late ?? {}) ?? '{}').data).toMatchObject({
      resultCode: '32114',
      delivered: false,
      messageStatus: 'uncertain',
    });
    expect(await scanItems(local().documents, eventTable)).toHaveLength(2);
    expect(await store.messageStatus('M-1')).toMatchObject({ state: 'delivered', reports: 2 });
  });

  it('publishes a 32114 published before the 10000 was stored as uncertain, then the 10000 as delivered', async () => {
    // Prepare
    const { poller, published, receive, drainAndStop } = await bridge();

    // Act
    await receive('M-2', '32114');
    await poller.drained();
    await receive('M-2', '10000');
    await drainAndStop();

    // Assess
    expect(published()).toEqual([
      { msgKey: 'M-2', resultCode: '32114', messageStatus: 'uncertain' },
      { msgKey: 'M-2', resultCode: '10000', messageStatus: 'delivered' },
    ]);
  });

  it('never moves a status back on the bus, with reports arriving at once', async () => {
    // Prepare: 12 messages, each with a 32114, a failure and a delivery posted at once, in turn
    const { store, poller, failed, published } = await bridge();
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
    await poller.drained();
    await poller.stop();

    // Assess: per message, in the bus's order, statuses never go back, each at least its own,
    // and everything published after a delivery says delivered
    expect(failed).toEqual([]);
    expect(outcomes.every((outcome) => outcome.stored === 1)).toBe(true);
    const onBus = published();
    for (let index = 0; index < 12; index += 1) {
      const mine = onBus.filter((r) => r.msgKey === `M-3-${index}`);
      expect(mine).toHaveLength(3);
      const ranks = mine.map((r) => RANK[String(r.messageStatus)] ?? 0);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const delivery = mine.findIndex((r) => r.resultCode === '10000');
      expect(mine.slice(delivery).every((r) => r.messageStatus === 'delivered')).toBe(true);
    }
  });
});
