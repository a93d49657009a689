/**
 * The quarantine as the console and the command list it (ops/quarantine.ts): every row with a
 * reason — the receiver's own for a quarantined body or item, what it means for a body of an
 * unknown shape — and the raw body as it came, phone numbers masked.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { listQuarantined } from '../../ops/quarantine.ts';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'ap-northeast-2' }));
const table = mockClient(documents);
afterEach(() => table.reset());

const detail = (type: string, data: Record<string, unknown>) =>
  JSON.stringify({ metadata: { id: type, type, receivedAt: '2026-11-27T09:00:00Z' }, data });

describe('listQuarantined', () => {
  it('gives every row its reason and its raw body, newest first', async () => {
    // Prepare
    table.on(ScanCommand).resolves({
      Items: [
        {
          pk: 'QUARANTINE#aa',
          sk: 'report#aa#body',
          receivedAt: '2026-11-27T09:00:00Z',
          detail: detail('Item Quarantined', {
            webhook: 'report',
            reason: 'body is not JSON',
            raw: '{"rptLst": <b> 010-1234-5678',
          }),
        },
        {
          pk: 'UNRECOGNISED#bb',
          sk: 'mo#bb',
          receivedAt: '2026-11-27T09:05:00Z',
          detail: detail('Unrecognised Inbound Body Received', {
            webhook: 'mo',
            topLevelKeys: ['biLst', 'biCnt'],
            body: '{"biCnt":1,"biLst":[{"from":"01098765432"}]}',
          }),
        },
      ],
    });

    // Act
    const items = await listQuarantined(documents, 'events');

    // Assess
    expect(items.map((item) => [item.kind, item.source, item.reason])).toEqual([
      [
        'unrecognised',
        'mo',
        'a body of a shape msgbridge does not know (top-level keys: biLst, biCnt); kept whole and answered as success',
      ],
      ['quarantine', 'report', 'body is not JSON'],
    ]);
    expect(items.map((item) => item.raw)).toEqual([
      '{"biCnt":1,"biLst":[{"from":"010****5432"}]}',
      '{"rptLst": <b> 010****5678',
    ]);
  });
});
