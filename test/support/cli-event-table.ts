import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Target } from '../../ops/target.ts';
import {
  fixedTokens,
  type GatewayScript,
  gatewayTarget,
  scriptedGateway,
  TEST_HOSTS,
} from './cli-gateway.ts';

/* An in-memory event table and a target on it for tests of `msgbridge status` and `trace`. */

export type Item = Record<string, unknown>;

/** An in-memory event table answering Query by pk and Scan (counted, so tests see which ran). */
export const fakeTable = (items: readonly Item[]) => {
  const ops: string[] = [];
  const documents = {
    send: async (command: unknown) => {
      if (command instanceof QueryCommand) {
        const pk = command.input.ExpressionAttributeValues?.[':pk'];
        ops.push(`Query ${String(pk)}`);
        return { Items: items.filter((item) => item.pk === pk) };
      }
      if (command instanceof ScanCommand) {
        const key = String(command.input.ExpressionAttributeValues?.[':key']);
        ops.push('Scan');
        return {
          Items: items.filter(
            (item) =>
              (String(item.pk).startsWith('SEND#') && item.msgKey === key) ||
              (String(item.pk).startsWith('QUARANTINE#') &&
                String(item.payload ?? '').includes(key)),
          ),
        };
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  } as unknown as DynamoDBDocumentClient;
  return { documents, ops };
};

/** A target on a fake event table and a scripted gateway. */
export const tableTarget = (items: readonly Item[], script: GatewayScript = {}) => {
  const table = fakeTable(items);
  const gateway = scriptedGateway(script);
  const base = gatewayTarget({
    hosts: TEST_HOSTS,
    tokens: fixedTokens(),
    transport: gateway.transport,
  });
  const target = {
    kind: 'local',
    describe: () => 'fake table',
    gateway: () => base.gateway(),
    tables: { events: 'events', state: 'state' },
    documents: table.documents,
  } as unknown as Target;
  return { target, ops: table.ops, calls: gateway.calls };
};

export const event = (
  pk: string,
  sk: string,
  type: string,
  receivedAt: string,
  data: Item,
  extra: Item = {},
) => ({
  pk,
  sk,
  kind: 'x',
  detailType: type,
  detail: JSON.stringify({ metadata: { type, receivedAt }, data }),
  eventId: `${pk}${sk}`,
  receivedAt,
  expiresAt: 1,
  ...extra,
});

export const ACCEPTED = event(
  'SEND#c-1',
  'OUTCOME',
  'Message Accepted',
  '2026-11-24T01:00:01.000Z',
  { cliKey: 'c-1', msgKey: 'm-1', channel: 'SMS', phone: '01012345678' },
  { msgKey: 'm-1', cliKey: 'c-1', acceptedAt: '2026-11-24T01:00:01.000Z' },
);
/** c-1's send record, its claim given back. */
export const SEND_RECORD = {
  pk: 'SEND#c-1',
  sk: 'MESSAGE',
  owner: 'attempt-1',
  claimedUntil: 0,
  expiresAt: 1,
};
export const REPORT = event(
  'REPORT#m-1',
  'RESULT#10000#SMS',
  'Delivery Report Received',
  '2026-11-24T01:00:05.000Z',
  {
    msgKey: 'm-1',
    cliKey: 'c-1',
    resultCode: '10000',
    resultCodeDesc: 'success',
    channel: 'SMS',
    phone: '01012345678',
  },
);
