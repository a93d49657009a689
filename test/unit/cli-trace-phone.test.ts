/**
 * `msgbridge trace --phone NUMBER`: a Scan that reads each stored event, and lists the messages
 * that name the number — a send by its cliKey, a report by the cliKey it names, an inbound message
 * by its moKey — newest first; other numbers never match.
 */
import { deflateRawSync } from 'node:zlib';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../ops/target.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';

const event = (type: string, at: string, data: Record<string, unknown>) =>
  JSON.stringify({ metadata: { id: `${type}-${at}`, type, receivedAt: at }, data });

const ITEMS = [
  {
    pk: 'SEND#order-1',
    sk: 'OUTCOME',
    detailType: 'Message Scheduled',
    detail: event('Message Scheduled', '2026-11-27T09:00:00Z', {
      cliKey: 'order-1',
      phone: '01012345678',
    }),
  },
  {
    pk: 'REPORT#M-2',
    sk: 'RESULT#10000#SMS',
    detailType: 'Delivery Report Received',
    // A large detail is stored deflated.
    detailZ: new Uint8Array(
      deflateRawSync(
        event('Delivery Report Received', '2026-11-27T10:00:00Z', {
          msgKey: 'M-2',
          cliKey: 'promo-2',
          phone: '010-1234-5678',
        }),
      ),
    ),
  },
  {
    pk: 'MO#mo-3',
    sk: 'MO',
    detailType: 'Inbound Message Received',
    detail: event('Inbound Message Received', '2026-11-27T11:00:00Z', {
      moKey: 'mo-3',
      sender: '01012345678',
    }),
  },
  {
    pk: 'REPORT#M-4',
    sk: 'RESULT#10000#SMS',
    detailType: 'Delivery Report Received',
    detail: event('Delivery Report Received', '2026-11-27T12:00:00Z', {
      msgKey: 'M-4',
      cliKey: 'other',
      phone: '01099998888',
    }),
  },
];

const target = (scans: string[]) =>
  ({
    kind: 'local',
    describe: () => 'fake table',
    tables: { events: 'events', state: 'state' },
    documents: {
      send: async (command: unknown) => {
        if (!(command instanceof ScanCommand)) throw new Error('only Scan');
        scans.push(String(command.input.TableName));
        return { Items: ITEMS };
      },
    } as unknown as DynamoDBDocumentClient,
  }) as unknown as Target;

describe('msgbridge trace --phone', () => {
  it('lists every message naming the number, newest first, whatever its format', async () => {
    const scans: string[] = [];

    const run = await runCli(
      ['trace', '--phone', '+82 10-1234-5678', '--json'],
      { resolveTarget: async () => target(scans) },
      captureIo(),
    );

    expect(run.code, run.stderr).toBe(0);
    const found = JSON.parse(run.stdout);
    expect(found.phone).toBe('01012345678');
    expect(found.matches.map((m: { kind: string; key: string }) => `${m.kind} ${m.key}`)).toEqual([
      'moKey mo-3',
      'cliKey promo-2',
      'cliKey order-1',
    ]);
    expect(found.complete).toBe(true);
    expect(scans).toEqual(['events']);
  });

  it('refuses a number that is not one, and a KEY beside --phone', async () => {
    const deps = { resolveTarget: async () => target([]) };

    const bad = await runCli(['trace', '--phone', '12-34'], deps, captureIo());
    const both = await runCli(['trace', 'key-1', '--phone', '01012345678'], deps, captureIo());
    const none = await runCli(['trace', '--phone', '01055550000'], deps, captureIo());

    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--phone must be a phone number in full');
    expect(both.code).toBe(2);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no stored event names 01055550000');
  });
});
