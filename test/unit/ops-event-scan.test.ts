/**
 * The operators' bounded Scan (ops/event-scan.ts): one filter over the named key prefixes, every
 * item read handed on up to the bound, and whether the Scan read everything that matched.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { scanKeyPrefixes } from '../../ops/event-scan.ts';

/** A client whose Scan answers `items` on one page, keeping each request it gets. */
const scanning = (items: Record<string, unknown>[]) => {
  const requests: unknown[] = [];
  const documents = {
    send: async (command: { input: unknown }) => {
      requests.push(command.input);
      return { Items: items };
    },
  } as unknown as DynamoDBDocumentClient;
  return { documents, requests };
};

describe('scanKeyPrefixes', () => {
  it('filters on every prefix by its placeholder name', async () => {
    const { documents, requests } = scanning([]);
    await scanKeyPrefixes(documents, 'events', { send: 'SEND#', mo: 'MO#' }, 10, () => {});
    expect(requests).toEqual([
      {
        TableName: 'events',
        FilterExpression: 'begins_with(pk, :send) OR begins_with(pk, :mo)',
        ExpressionAttributeValues: { ':send': 'SEND#', ':mo': 'MO#' },
      },
    ]);
  });

  it.each([
    { items: ['a', 'b'], seen: ['a', 'b'], extent: { scanned: 2, complete: true } },
    { items: ['a', 'b', 'c'], seen: ['a', 'b'], extent: { scanned: 2, complete: false } },
  ])(
    'hands on the items up to a bound of 2 of $items: $extent',
    async ({ items, seen, extent }) => {
      const { documents } = scanning(items.map((pk) => ({ pk })));
      const handed: unknown[] = [];
      const answer = await scanKeyPrefixes(documents, 'events', { send: 'SEND#' }, 2, (item) =>
        handed.push(item.pk),
      );
      expect(handed).toEqual(seen);
      expect(answer).toEqual(extent);
    },
  );
});
