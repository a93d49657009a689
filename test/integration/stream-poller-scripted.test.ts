import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  InternalServerError,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';
import { startStreamPoller } from '../../local/stream-poller.ts';
import { keyOf } from '../support/dynamodb-local.ts';

const STREAM_ARN = 'arn:aws:dynamodb:ap-northeast-2:000000000000:table/events/stream/label';

/** A streams client whose calls a test scripts; destroyed when the test ends. */
const scriptedStreams = () => {
  const client = new DynamoDBStreamsClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  onTestFinished(() => client.destroy());
  return { client, mock: mockClient(client) };
};

/** An INSERT record of item `item-<sequence>` at `sequence`. */
const insertRecord = (sequence: string): _Record => ({
  eventID: `event-${sequence}`,
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  eventVersion: '1.1',
  awsRegion: LOCAL_REGION,
  dynamodb: {
    Keys: { pk: { S: `item-${sequence}` } },
    NewImage: { pk: { S: `item-${sequence}` } },
    SequenceNumber: sequence,
    StreamViewType: 'NEW_IMAGE',
  },
});

// DynamoDB Local keeps one shard per stream for hours, so shard lineage, lapsed iterators and
// API errors are played from a script here; the poller cannot tell the difference.
describe('startStreamPoller on a scripted stream', () => {
  it('reads a parent shard to its end before its child, and rides out API errors', async () => {
    // Prepare: the child is listed first, the first DescribeStream fails, and the child's first
    // iterator has lapsed.
    const { client, mock } = scriptedStreams();
    const calls: string[] = [];
    const pages: Record<string, { records: _Record[]; next?: string }> = {
      'parent@TRIM_HORIZON': {
        records: [insertRecord('100'), insertRecord('101')],
        next: 'parent@2',
      },
      'parent@2': { records: [], next: undefined },
      'child@TRIM_HORIZON#2': { records: [insertRecord('200')], next: 'child@2' },
      'child@2': { records: [], next: 'child@2' },
    };
    let childIterators = 0;
    mock
      .on(DescribeStreamCommand)
      .rejectsOnce(new InternalServerError({ message: 'try again', $metadata: {} }))
      .resolves({
        StreamDescription: {
          Shards: [{ ShardId: 'child', ParentShardId: 'parent' }, { ShardId: 'parent' }],
        },
      });
    mock.on(GetShardIteratorCommand).callsFake((input) => {
      calls.push(`iterator ${input.ShardId} ${input.ShardIteratorType}`);
      if (input.ShardId !== 'child') return { ShardIterator: `parent@${input.ShardIteratorType}` };
      childIterators += 1;
      return { ShardIterator: `child@${input.ShardIteratorType}#${childIterators}` };
    });
    mock.on(GetRecordsCommand).callsFake((input) => {
      const iterator = String(input.ShardIterator);
      calls.push(`records ${iterator}`);
      if (iterator === 'child@TRIM_HORIZON#1') {
        throw new ExpiredIteratorException({ message: 'expired', $metadata: {} });
      }
      const page = pages[iterator];
      if (page === undefined) throw new Error(`unexpected iterator ${iterator}`);
      return { Records: page.records, NextShardIterator: page.next };
    });
    const delivered: string[] = [];

    // Act
    const poller = startStreamPoller({
      streamsClient: client,
      streamArn: STREAM_ARN,
      pollIntervalMs: 10,
      handler: (event) => {
        delivered.push(...event.Records.map(keyOf));
      },
      onFailure: () => undefined,
    });
    onTestFinished(() => poller.stop());
    await poller.drained();

    // Assess
    expect(delivered).toEqual(['item-100', 'item-101', 'item-200']);
    expect(calls.slice(0, 5)).toEqual([
      'iterator parent TRIM_HORIZON',
      'records parent@TRIM_HORIZON',
      'records parent@2',
      'iterator child TRIM_HORIZON',
      'records child@TRIM_HORIZON#1',
    ]);
    expect(calls).toContain('records child@TRIM_HORIZON#2');
    expect(poller.stats.lastStreamError?.message).toMatch(/try again/);
    expect(poller.stats.fatalError).toBeUndefined();
  });

  it('stops and rejects drained() when onFailure itself fails, instead of skipping the record', async () => {
    // Prepare
    const { client, mock } = scriptedStreams();
    mock
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { Shards: [{ ShardId: 'only' }] } });
    mock.on(GetShardIteratorCommand).resolves({ ShardIterator: 'only@start' });
    mock
      .on(GetRecordsCommand, { ShardIterator: 'only@start' })
      .resolves({
        Records: [
          { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', Keys: { pk: { S: 'a' } } } },
        ],
        NextShardIterator: 'only@end',
      })
      .on(GetRecordsCommand, { ShardIterator: 'only@end' })
      .resolves({ Records: [], NextShardIterator: 'only@end' });

    // Act
    const poller = startStreamPoller({
      streamsClient: client,
      streamArn: STREAM_ARN,
      maxRetries: 0,
      handler: () => {
        throw new Error('handler failed');
      },
      onFailure: () => {
        throw new Error('destination unavailable');
      },
    });
    onTestFinished(() => poller.stop());
    const draining = poller.drained();

    // Assess
    await expect(draining).rejects.toThrow('destination unavailable');
    expect(poller.stats).toMatchObject({ invocations: 1, recordsFailed: 1 });
    expect(poller.stats.fatalError?.message).toBe('destination unavailable');
  });
});
