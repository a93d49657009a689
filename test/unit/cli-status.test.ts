import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { ACCEPTED, REPORT, SEND_RECORD, tableTarget } from '../support/cli-event-table.ts';
import { captureIo, type GatewayScript, runCli } from '../support/cli-gateway.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');

const DONE: GatewayScript = {
  'POST /msg/v1/sent': (call) => ({
    data: {
      cliKeyLst: (call.body as { cliKeyLst: Array<{ cliKey: string }> }).cliKeyLst.map(
        ({ cliKey }) =>
          cliKey === 'c-1'
            ? {
                cliKey,
                msgKey: 'm-1',
                ch: 'SMS',
                status: 'DONE',
                resultCode: '10000',
                resultCodeDesc: 'success',
                telco: 'SKT',
                fbReasonLst: [],
                rptDt: '2026-11-24 10:00:05',
                productCode: 'SMS',
              }
            : { cliKey, status: 'INVALID_KEY', msgKey: null, ch: null },
      ),
    },
  }),
};

const status = async (args: string[], script: GatewayScript = DONE) => {
  const { target, ops, calls } = tableTarget([ACCEPTED, SEND_RECORD, REPORT], script);
  const result = await runCli(
    ['status', ...args],
    { resolveTarget: async () => target, now: () => NOW },
    captureIo(),
  );
  return { ...result, ops, calls };
};

describe('msgbridge status', () => {
  it("queries the gateway with each cliKey's stored day and shows its send records beside it", async () => {
    const result = await status(['c-1', 'c-9', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.calls).toHaveLength(1);
    // c-1 was accepted at 01:00 UTC = 10:00 KST on the 24th; c-9 has nothing stored: today in KST.
    expect(result.calls[0]?.body).toEqual({
      cliKeyLst: [
        { cliKey: 'c-1', reqDt: '2026-11-24' },
        { cliKey: 'c-9', reqDt: '2026-11-24' },
      ],
    });
    const rows = JSON.parse(result.stdout);
    expect(rows[0]).toMatchObject({ cliKey: 'c-1', gateway: { status: 'DONE', msgKey: 'm-1' } });
    expect(rows[0].stored.map((entry: { sk: string }) => entry.sk)).toEqual(['OUTCOME', 'MESSAGE']);
    expect(rows[1]).toMatchObject({
      cliKey: 'c-9',
      gateway: { status: 'INVALID_KEY' },
      stored: [],
    });
    expect(result.ops).toEqual(['Query SEND#c-1', 'Query SEND#c-9']);
    expect(result.stdout).not.toContain('01012345678');
  });

  it('prints a table of statuses and the stored records of each cliKey', async () => {
    const result = await status(['c-1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/c-1\s+2026-11-24\s+DONE\s+10000\s+SMS\s+m-1/);
    expect(result.stdout).toContain('c-1 stored:');
    expect(result.stdout).toContain('Message Accepted');
    expect(result.stdout).not.toContain('01012345678');
  });

  it('takes --date for every cliKey, only within the last 90 days', async () => {
    const given = await status(['c-1', '--date', '2026-09-01']);
    expect(given.code, given.stderr).toBe(0);
    expect(given.calls[0]?.body).toEqual({ cliKeyLst: [{ cliKey: 'c-1', reqDt: '2026-09-01' }] });
    for (const date of ['2026-08-01', '2026-11-25', '24-11-2026']) {
      const refused = await status(['c-1', '--date', date]);
      expect(refused.code, date).toBe(2);
      expect(refused.calls).toHaveLength(0);
    }
  });

  it('refuses an impossible calendar date as not a date, before the 90-day range', async () => {
    // 2026-02-30 is outside the range too; 2026-09-31 would be inside it.
    for (const date of ['2026-02-30', '2026-09-31', '2026-11-00', '2026-13-01']) {
      const refused = await status(['c-1', '--date', date]);
      expect(refused.code, date).toBe(2);
      expect(refused.stderr, date).toContain(`--date ${date} is not a date (YYYY-MM-DD`);
      expect(refused.stderr, date).not.toContain('must be within');
      expect(refused.calls, date).toHaveLength(0);
    }
  });

  it('takes at most 10 cliKeys, at least one', async () => {
    const eleven = await status(Array.from({ length: 11 }, (_, i) => `k-${i}`));
    expect(eleven.code).toBe(2);
    expect(eleven.stderr).toContain('unexpected argument "k-10"');
    expect(eleven.calls).toHaveLength(0);
    const none = await status([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('needs at least one cliKey');
  });

  it('shows a gateway refusal as a failure', async () => {
    const result = await status(['c-1'], {
      'POST /msg/v1/sent': { code: '29001', message: 'bad request' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the gateway refused: 29001');
  });
});

describe('msgbridge --help', () => {
  it('says why polling, confirming and listing MO are not commands', async () => {
    const captured = captureIo();
    expect(await main(['--help'], captured.io)).toBe(0);
    expect(captured.stdout()).toMatch(/status\s+the gateway's status/);
    expect(captured.stdout()).toMatch(/trace\s+every stored item/);
    expect(captured.stdout()).toContain('would take it away from the running bridge');
  });
});
