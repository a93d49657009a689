import { describe, expect, it } from 'vitest';
import {
  ACCEPTED,
  event,
  type Item,
  REPORT,
  SEND_RECORD,
  tableTarget,
} from '../support/cli-event-table.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';

const GUARD = { pk: 'REPORT#m-1', sk: 'GUARD#x', reportGuardOf: 'c-1', expiresAt: 1 };
const MO = event('MO#mo-1', 'MO', 'Inbound Message Received', '2026-11-24T02:00:00.000Z', {
  moKey: 'mo-1',
  moNumber: '01099998888',
});
const ATTACHMENT = event(
  'MO#mo-1',
  'ATTACHMENT#1',
  'Attachment Stored',
  '2026-11-24T02:00:03.000Z',
  {
    moKey: 'mo-1',
    index: 1,
  },
);
const QUARANTINED = {
  pk: 'QUARANTINE#abc',
  sk: 'report#def#0',
  detailType: 'Webhook Item Quarantined',
  detail: JSON.stringify({
    metadata: { receivedAt: '2026-11-24T01:00:06.000Z' },
    data: { reason: 'bad' },
  }),
  payload: '{"msgKey":"m-2"}',
  receivedAt: '2026-11-24T01:00:06.000Z',
};
const LONELY = event(
  'SEND#c-2',
  'OUTCOME',
  'Message Accepted',
  '2026-11-24T01:00:00.000Z',
  { cliKey: 'c-2', msgKey: 'm-2' },
  { msgKey: 'm-2', cliKey: 'c-2' },
);
const TABLE = [SEND_RECORD, REPORT, GUARD, ACCEPTED, MO, ATTACHMENT, QUARANTINED, LONELY];

const trace = async (args: string[]) => {
  const { target, ops } = tableTarget(TABLE);
  const captured = captureIo();
  const code = await runCli(['trace', ...args], { resolveTarget: async () => target }, captured);
  return { ...code, ops };
};

describe('msgbridge trace', () => {
  it('traces a cliKey through its outcome, send record and the reports of its msgKey, by Query only', async () => {
    const result = await trace(['c-1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ key: 'c-1', cliKey: 'c-1', msgKey: 'm-1' });
    expect(doc.entries.map((e: Item) => `${e.pk} ${e.sk}`)).toEqual([
      'SEND#c-1 OUTCOME',
      'REPORT#m-1 RESULT#10000#SMS',
      'SEND#c-1 MESSAGE',
    ]);
    expect(result.ops.every((op) => op.startsWith('Query'))).toBe(true);
    expect(result.ops).toContain('Query REPORT#m-1');
    expect(result.stdout).not.toContain('01012345678');
    expect(result.stdout).toContain('010****5678');
  });

  it('traces a msgKey back to its cliKey through the report', async () => {
    const result = await trace(['m-1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('cliKey c-1, msgKey m-1');
    const lines = result.stdout.split('\n');
    const order = ['SEND#c-1 OUTCOME', 'REPORT#m-1 RESULT#10000#SMS', 'SEND#c-1 MESSAGE'].map(
      (item) => lines.findIndex((line) => line.includes(item)),
    );
    expect(order.every((index) => index > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(result.stdout).toContain('result 10000, success, SMS, msgKey m-1');
    expect(result.stdout).not.toContain('GUARD');
    expect(result.stdout).not.toContain('01012345678');
  });

  it('traces a moKey with its attachments, phone numbers masked', async () => {
    const result = await trace(['mo-1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.moKey).toBe('mo-1');
    expect(doc.entries.map((e: Item) => e.sk)).toEqual(['MO', 'ATTACHMENT#1']);
    expect(result.stdout).not.toContain('01099998888');
  });

  it('finds a msgKey without reports and its quarantined body only with --scan', async () => {
    const without = await trace(['m-2']);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('--scan');
    expect(without.ops).not.toContain('Scan');
    const withScan = await trace(['m-2', '--scan', '--json']);
    expect(withScan.code, withScan.stderr).toBe(0);
    const doc = JSON.parse(withScan.stdout);
    expect(doc.cliKey).toBe('c-2');
    expect(doc.entries.map((e: Item) => e.pk)).toEqual(['SEND#c-2', 'QUARANTINE#abc']);
  });

  it('prints times in KST with the zone, in UTC with --utc, and ISO 8601 with --json', async () => {
    // Act
    const kst = await trace(['mo-1']);
    const utc = await trace(['mo-1', '--utc']);
    const json = await trace(['mo-1', '--json', '--utc']);

    // Assess
    const rows = (stdout: string) => stdout.split('\n').filter((line) => line.includes('MO#mo-1'));
    expect(rows(kst.stdout).map((line) => line.slice(0, 23))).toEqual([
      '2026-11-24 11:00:00 KST',
      '2026-11-24 11:00:03 KST',
    ]);
    expect(rows(utc.stdout).map((line) => line.slice(0, 23))).toEqual([
      '2026-11-24 02:00:00 UTC',
      '2026-11-24 02:00:03 UTC',
    ]);
    expect(kst.stdout.split('\n')[1]).toMatch(/^TIME {21}ITEM/);
    expect(JSON.parse(json.stdout).entries.map((e: Item) => e.at)).toEqual([
      '2026-11-24T02:00:00.000Z',
      '2026-11-24T02:00:03.000Z',
    ]);
  });

  it('shows the times inside a summary by the same rule', async () => {
    // Prepare: a send record claimed until a time.
    const claimed = {
      pk: 'SEND#c-9',
      sk: 'MESSAGE',
      owner: '1#a',
      claimedUntil: Date.parse('2026-11-24T01:00:30.000Z'),
      channel: 'sms',
      'accepted#c-9': { t: Date.parse('2026-11-24T01:00:01.000Z') / 1000, m: 'm-9' },
    };
    const { target } = tableTarget([claimed]);
    const run = (...extra: string[]) =>
      runCli(['trace', 'c-9', ...extra], { resolveTarget: async () => target }, captureIo());

    // Act
    const kst = await run();
    const utc = await run('--utc');
    const json = await run('--json');

    // Assess
    expect(kst.stdout).toContain('claimed by 1#a until 2026-11-24 10:00:30 KST');
    expect(kst.stdout).toMatch(/^2026-11-24 10:00:01 KST {2}SEND#c-9 MESSAGE accepted\.c-9/m);
    expect(utc.stdout).toContain('claimed by 1#a until 2026-11-24 01:00:30 UTC');
    expect(JSON.parse(json.stdout).entries.map((e: Item) => e.summary)).toContain(
      'send record: 1 recipients accepted, claimed by 1#a until 2026-11-24T01:00:30.000Z',
    );
  });

  it('needs a key', async () => {
    const result = await trace([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('needs a cliKey, msgKey or moKey');
  });
});
