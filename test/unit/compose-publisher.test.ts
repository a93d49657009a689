import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { composePublisher } from '../../functions/publishing/compose.ts';
import { decoyProcessEnv } from '../support/decoy-process-env.ts';
import { RecordingBus } from '../support/recording-bus.ts';
import { reportStreamRecords } from '../support/report-stream-records.ts';
import { silentObservability } from '../support/silent-observability.ts';

const ENV = {
  EVENT_BUS_NAME: 'test-bus',
  STATE_TABLE_NAME: 'state-table',
  EVENT_TABLE_NAME: 'event-table',
  EVENT_SOURCE: 'test-source',
  PUBLISH_MAX_ATTEMPTS: '2',
};

const observed = silentObservability();

/** A state table that has no markers and takes every write; an event table with no other report. */
const emptyStateTable = () => {
  const tables: string[] = [];
  const documents = {
    send: async (command: { input: { TableName?: string; RequestItems?: object } }) => {
      tables.push(
        command.input.TableName ?? Object.keys(command.input.RequestItems ?? {})[0] ?? '',
      );
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { tables, documents };
};

describe('composePublisher', () => {
  it('composes the publisher from the environment object it is given, not process.env', async () => {
    decoyProcessEnv({ EVENT_SOURCE: 'process-source' });
    const bus = new RecordingBus();
    const { tables, documents } = emptyStateTable();

    const publisher = composePublisher(ENV, { ...observed, documents, bus });
    const answer = await publisher.handler({ Records: await reportStreamRecords(3) });

    expect(answer.batchItemFailures).toEqual([]);
    expect(bus.entries).toHaveLength(3);
    expect(bus.entries.map((entry) => entry.Source)).toEqual(Array(3).fill('test-source'));
    expect(publisher.metrics).toBe(observed.metrics);
    // The state table for the markers' flag, the event table for each message's status.
    expect(new Set(tables)).toEqual(new Set(['state-table', 'event-table']));
  });

  it('reads EVENT_BUS_NAME only when it builds the EventBridge bus itself', () => {
    expect(() => composePublisher(ENV, observed)).not.toThrow();
    expect(() =>
      composePublisher(
        { ...ENV, EVENT_BUS_NAME: undefined },
        { ...observed, bus: new RecordingBus() },
      ),
    ).not.toThrow();
  });

  it.each(['EVENT_BUS_NAME', 'STATE_TABLE_NAME', 'EVENT_TABLE_NAME'])(
    'fails naming a missing %s',
    (name) => {
      expect(() => composePublisher({ ...ENV, [name]: '' }, observed)).toThrow(
        `environment variable ${name} is required`,
      );
    },
  );

  it('fails naming a malformed PUBLISH_MAX_ATTEMPTS', () => {
    expect(() => composePublisher({ ...ENV, PUBLISH_MAX_ATTEMPTS: '11' }, observed)).toThrow(
      /PUBLISH_MAX_ATTEMPTS/,
    );
  });
});
