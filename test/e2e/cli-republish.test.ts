/**
 * `msgbridge events republish` against the local run (`npm start`'s bridge, reached through
 * bridge.json): an item whose detail is broken becomes a poison record the publisher marks
 * `unpublished`; once the item is repaired, republish publishes it. An event EventBridge keeps
 * refusing, whose `unpublished` mark cannot be written either, makes publish-events fail its batch
 * until the event source mapping gives up and sends the on-failure queue Lambda's invocation
 * record; republish reads that queue and the stream, publishes the event from the table and
 * settles the message.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { useCliLocalRun } from '../support/cli-local-run.ts';

/** While set, publish-events can neither put the `e2e-failed` event nor mark it unpublished. */
let refusing = false;

const run = useCliLocalRun({
  name: 'cli-republish',
  seed: 13,
  instrument: {
    clients: ({ eventBridge, dynamodb }, functionName) => {
      if (functionName !== 'publish-events') return;
      eventBridge.middlewareStack.add(
        (next, context) => async (args) => {
          const input = args.input as { Entries?: Array<{ Detail?: string }> };
          if (!refusing || context.commandName !== 'PutEventsCommand') return next(args);
          if (!(input.Entries ?? []).some((entry) => entry.Detail?.includes('e2e-failed')))
            return next(args);
          throw Object.assign(new Error('EventBridge failed the call (injected)'), {
            name: 'InternalException',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        },
        { step: 'initialize', name: 'refuseE2eFailed' },
      );
      dynamodb.middlewareStack.add(
        (next) => async (args) => {
          const text = JSON.stringify(args.input);
          if (refusing && text.includes('PUBLISH#') && text.includes('E2E#failed'))
            throw Object.assign(new Error('the table refused the write (injected)'), {
              name: 'InternalServerError',
              $fault: 'server',
              $metadata: { httpStatusCode: 500 },
            });
          return next(args);
        },
        { step: 'initialize', name: 'refuseE2eFailedMark' },
      );
    },
  },
});

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
    // An event whose publication and mark both keep failing: its batch ends on the on-failure
    // queue once the mapping's retries are spent.
    refusing = true;
    await documents.send(
      new PutCommand({
        TableName: tables.events,
        Item: {
          pk: 'E2E#failed',
          sk: 'EVENT',
          detailType: 'Test Event',
          detail: detail('e2e-failed'),
          eventId: 'e2e-failed',
        },
      }),
    );
    for (const end = Date.now() + 120_000; Date.now() < end; ) {
      if (run.bridge().publisherFailureCount() > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(run.bridge().publisherFailureCount()).toBe(1);
    refusing = false;
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([0, 0]);

    // Act
    const republished = await run.msgbridge('events', 'republish', '--yes');

    // Assess
    expect(republished.code, republished.stderr).toBe(0);
    expect(republished.stdout).toContain('published 2 events');
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([1, 1]);
    expect(run.bridge().publisherFailureCount()).toBe(0);
    const again = await run.msgbridge('events', 'republish', '--yes', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ published: 0 });
    expect([published('e2e-poison'), published('e2e-failed')]).toEqual([1, 1]);
  });
});
