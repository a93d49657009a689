/**
 * `msgbridge events republish` against the local run (`npm start`'s bridge, reached through
 * bridge.json): an item whose detail is broken becomes a poison record the publisher marks
 * `unpublished`; once the item is repaired, republish publishes it; a record the local run's
 * on-failure destination holds is published from the table and leaves the list.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { useCliLocalRun } from '../support/cli-local-run.ts';

const run = useCliLocalRun({ name: 'cli-republish', seed: 13 });

const detail = (id: string) =>
  JSON.stringify({ metadata: { id, occurredAt: '2026-11-21T00:00:00.000Z' }, data: { id } });

const published = (id: string) =>
  run.bridge().bus.entries.filter((entry) => JSON.parse(entry.Detail).metadata.id === id).length;

describe('events republish on the local run', () => {
  it('publishes a repaired poison item and an on-failure record from the table, once', async () => {
    // Prepare: a poison item (its detail is not JSON), which the publisher marks unpublished.
    const { documents, tables } = run.bridge();
    await documents.send(
      new PutCommand({
        TableName: tables.events,
        Item: {
          pk: 'E2E#poison',
          sk: 'EVENT',
          detailType: 'Test Event',
          detail: '{broken',
          eventId: 'e2e-poison',
        },
      }),
    );
    const marked = async () =>
      (await run.msgbridge('events', 'republish', '--dry-run', '--json')).stdout;
    for (const end = Date.now() + 30_000; Date.now() < end; ) {
      if (JSON.parse(await marked()).toPublish === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(JSON.parse(await marked())).toMatchObject({ toPublish: 1, batches: 0 });
    // Repair it (an update is no INSERT: the stream does not publish it again).
    await documents.send(
      new UpdateCommand({
        TableName: tables.events,
        Key: { pk: 'E2E#poison', sk: 'EVENT' },
        UpdateExpression: 'SET detail = :detail',
        ExpressionAttributeValues: { ':detail': detail('e2e-poison') },
      }),
    );
    // A record given to the on-failure destination: an item whose insert carried no event (so
    // the stream filter passed it by) and that became an event item by an update.
    await documents.send(
      new PutCommand({ TableName: tables.events, Item: { pk: 'E2E#failed', sk: 'EVENT' } }),
    );
    await documents.send(
      new UpdateCommand({
        TableName: tables.events,
        Key: { pk: 'E2E#failed', sk: 'EVENT' },
        UpdateExpression: 'SET detailType = :type, detail = :detail, eventId = :id',
        ExpressionAttributeValues: {
          ':type': 'Test Event',
          ':detail': detail('e2e-failed'),
          ':id': 'e2e-failed',
        },
      }),
    );
    await run.bridge().publisher.drained();
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([0, 0]);
    run.bridge().poisoned.push({
      eventName: 'INSERT',
      dynamodb: { Keys: { pk: { S: 'E2E#failed' }, sk: { S: 'EVENT' } }, SequenceNumber: '42' },
    } as DynamoDBRecord);

    // Act
    const republished = await run.msgbridge('events', 'republish', '--yes');

    // Assess
    expect(republished.code, republished.stderr).toBe(0);
    expect(republished.stdout).toContain('published 2 events');
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([1, 1]);
    expect(run.bridge().poisoned).toEqual([]);
    const again = await run.msgbridge('events', 'republish', '--yes', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ published: 0 });
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([1, 1]);
  });
});
