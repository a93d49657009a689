/** Event table stream records made the way the table makes them: real stored items, in DynamoDB JSON. */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { reportBody } from '../../fixtures/gateway-bodies.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from './fake-event-store.ts';

/** INSERT records of `items`, numbered from 1000 in their order. */
export const insertRecordsOf = (items: readonly EventRecord[]): DynamoDBRecord[] =>
  items.map((item, index) => ({
    eventName: 'INSERT',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }),
      NewImage: marshall(item),
      SequenceNumber: String(1000 + index),
    },
  })) as DynamoDBRecord[];

/** Stream records of `count` stored reports, as the report receiver stores them. */
export const reportStreamRecords = async (count: number): Promise<DynamoDBRecord[]> => {
  const store = new FakeEventStore();
  await receiveReports(JSON.stringify(reportBody(count)), {
    store,
    now: () => new Date('2026-11-21T00:00:00Z'),
    retentionDays: 35,
    concurrency: 1,
  });
  return insertRecordsOf([...store.items.values()]);
};
