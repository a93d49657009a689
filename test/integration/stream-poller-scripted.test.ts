import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  InternalServerError,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local.ts';
import { startStreamPoller } from '../../local/stream-poller.ts';
import type { StreamPollerOptions } from '../../local/stream-poller-options.ts';
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

/** A poller of the scripted stream, `options` over its defaults; stopped when the test ends. */
const pollerOf = (
  client: DynamoDBStreamsClient,
  options: Omit<StreamPollerOptions, 'streamsClient' | 'streamArn' | 'onFailure'> &
    Partial<Pick<StreamPollerOptions, 'onFailure'>>,
) => {
  const poller = startStreamPoller({
    streamsClient: client,
    streamArn: STREAM_ARN,
    onFailure: () => undefined,
    ...options,
  });
  onTestFinished(() => poller.stop());
  return poller;
};

/** A poller of the scripted stream that keeps `read(record)` of each record it hands over. */
const collectingPoller = <T>(
  client: DynamoDBStreamsClient,
  pollIntervalMs: number,
  read: (record: DynamoDBRecord) => T,
) => {
  const delivered: T[] = [];
  const poller = pollerOf(client, {
    pollIntervalMs,
    handler: (event) => {
      delivered.push(...event.Records.map(read));
    },
  });
  return { poller, delivered };
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

    // Act
    const { poller, delivered } = collectingPoller(client, 10, keyOf);
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
    const poller = pollerOf(client, {
      maxRetries: 0,
      handler: () => {
        throw new Error('handler failed');
      },
      onFailure: () => {
        throw new Error('destination unavailable');
      },
    });
    const draining = poller.drained();

    // Assess
    await expect(draining).rejects.toThrow('destination unavailable');
    expect(poller.stats).toMatchObject({ invocations: 1, recordsFailed: 1 });
    expect(poller.stats.fatalError?.message).toBe('destination unavailable');
  });

  describe('with a parallelization factor', () => {
    /** `count` records on one shard, `keys` partition keys taking turns, with ordered sequences. */
    const shardOf = (count: number, keys: number) => {
      const { client, mock } = scriptedStreams();
      const records: _Record[] = Array.from({ length: count }, (_, index) => {
        const sequence = String(1_000 + index);
        return {
          eventName: 'INSERT',
          dynamodb: {
            Keys: { pk: { S: `key-${index % keys}` }, sk: { S: sequence } },
            SequenceNumber: sequence,
          },
        };
      });
      const reads = { count: 0 };
      mock
        .on(DescribeStreamCommand)
        .resolves({ StreamDescription: { Shards: [{ ShardId: 'only' }] } });
      mock.on(GetShardIteratorCommand).resolves({ ShardIterator: 'only@start' });
      mock.on(GetRecordsCommand).callsFake((input) => {
        reads.count += 1;
        return input.ShardIterator === 'only@start'
          ? { Records: records, NextShardIterator: 'only@end' }
          : { Records: [], NextShardIterator: 'only@end' };
      });
      return { client, reads };
    };
    const sequenceOf = (record: { dynamodb?: { SequenceNumber?: string } }) =>
      Number(record.dynamodb?.SequenceNumber);
    const keyOfRecord = (record: { dynamodb?: { Keys?: Record<string, { S?: string }> } }) =>
      record.dynamodb?.Keys?.pk?.S ?? '';

    it('runs up to that many batches of a shard at once, each partition key in order', async () => {
      // Prepare: 400 records of 20 partition keys, batches of 10, 4 lanes.
      const { client } = shardOf(400, 20);
      const seen = new Map<string, number[]>();
      const checkpoints: string[] = [];
      let inFlight = 0;
      let overlapped = 0;

      // Act
      const poller = pollerOf(client, {
        batchSize: 10,
        parallelizationFactor: 4,
        partitionKeyAttribute: 'pk',
        handler: async (event) => {
          inFlight += 1;
          if (inFlight > 1) overlapped += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
          for (const record of event.Records) {
            const key = keyOfRecord(record);
            seen.set(key, [...(seen.get(key) ?? []), sequenceOf(record)]);
          }
          inFlight -= 1;
        },
        onCheckpoint: (_shard, sequence) => {
          checkpoints.push(sequence);
        },
      });
      await poller.drained();

      // Assess: every record once, each key's in stream order, lanes side by side but never more
      // than four, and the checkpoint at the shard's last record.
      const all = [...seen.values()].flat();
      expect(all).toHaveLength(400);
      expect(new Set(all).size).toBe(400);
      for (const sequences of seen.values()) {
        expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      }
      expect(overlapped).toBeGreaterThan(0);
      expect(poller.stats.maxConcurrentInvocations).toBeGreaterThan(1);
      expect(poller.stats.maxConcurrentInvocations).toBeLessThanOrEqual(4);
      expect(checkpoints.at(-1)).toBe('1399');
      // A key's records never travel in two batches at once: its lane is fixed.
      expect(poller.stats.invocations).toBeGreaterThanOrEqual(40);
    });

    it('retries a failing lane alone, keeping its keys in order, and checkpoints only when every lane settled', async () => {
      // Prepare: the first batch carrying key-3 fails once.
      const { client } = shardOf(60, 6);
      const delivered: Array<{ key: string; sequence: number }> = [];
      const checkpoints: string[] = [];
      let failed = false;

      // Act
      const poller = pollerOf(client, {
        batchSize: 5,
        parallelizationFactor: 3,
        partitionKeyAttribute: 'pk',
        bisectOnError: false,
        handler: (event) => {
          const keys = event.Records.map(keyOfRecord);
          if (!failed && keys.includes('key-3')) {
            failed = true;
            checkpoints.push('(failure seen)');
            throw new Error('lane failure');
          }
          for (const record of event.Records) {
            delivered.push({ key: keyOfRecord(record), sequence: sequenceOf(record) });
            if (sequenceOf(record) === 1003) checkpoints.push('(1003 delivered)');
          }
        },
        onCheckpoint: (_shard, sequence) => {
          checkpoints.push(sequence);
        },
      });
      await poller.drained();

      // Assess
      expect(failed).toBe(true);
      expect(poller.stats.retries).toBe(1);
      expect(delivered).toHaveLength(60);
      for (const key of new Set(delivered.map((d) => d.key))) {
        const sequences = delivered.filter((d) => d.key === key).map((d) => d.sequence);
        expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      }
      // A run is batchSize × factor records (15): the first checkpoint, past the failed record
      // 1003, comes only after its retry delivered it.
      expect(checkpoints).toEqual([
        '(failure seen)',
        '(1003 delivered)',
        '1014',
        '1029',
        '1044',
        '1059',
      ]);
    });

    it('reads nothing while paused, and everything after resume()', async () => {
      // Prepare
      const { client, reads } = shardOf(30, 3);
      const { poller, delivered } = collectingPoller(client, 5, sequenceOf);

      // Act
      await poller.pause();
      const readsWhenPaused = reads.count;
      delivered.length = 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const readsAfterWaiting = reads.count;
      poller.resume();
      await poller.drained();

      // Assess: no read while paused; the first pass may have delivered before pause().
      expect(readsAfterWaiting).toBe(readsWhenPaused);
      expect(reads.count).toBeGreaterThan(readsAfterWaiting);
      expect(poller.stats.recordsSucceeded).toBe(30);
    });

    it('refuses a factor outside 1-10, and a factor above 1 without the partition key', () => {
      const { client } = scriptedStreams();
      const start = (options: { parallelizationFactor: number; partitionKeyAttribute?: string }) =>
        startStreamPoller({
          streamsClient: client,
          streamArn: STREAM_ARN,
          handler: () => undefined,
          onFailure: () => undefined,
          ...options,
        });
      expect(() => start({ parallelizationFactor: 11, partitionKeyAttribute: 'pk' })).toThrow(
        /parallelizationFactor must be an integer from 1 to 10/,
      );
      expect(() => start({ parallelizationFactor: 0, partitionKeyAttribute: 'pk' })).toThrow(
        /parallelizationFactor/,
      );
      expect(() => start({ parallelizationFactor: 2 })).toThrow(/needs the partitionKeyAttribute/);
    });
  });
});
