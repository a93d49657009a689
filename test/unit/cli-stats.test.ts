import { describe, expect, it } from 'vitest';
import { MESSENGER_STATS } from '../../gateway/schemas/index.ts';
import { refusal, words } from '../support/cli-command-line.ts';
import { type GatewayScript, runScriptedCli } from '../support/cli-gateway.ts';

/** Runs `msgbridge ARGS…` against a scripted gateway; answers the output and the calls made. */
const run = (args: string[], script?: GatewayScript) => runScriptedCli(args, script);

const COMMANDS = {
  'channel-notice-read': 'channelNoticeRead',
  'channel-brand-read': 'channelBrandRead',
  'channel-brand-click': 'channelBrandClick',
  'template-notice-read': 'templateNoticeRead',
  'template-brand-read': 'templateBrandRead',
  'template-notice-click': 'templateNoticeClick',
  'template-brand-click': 'templateBrandClick',
} as const;

describe('msgbridge stats', () => {
  it('has one subcommand per statistic, each calling its own path with the query', async () => {
    expect(Object.values(COMMANDS).sort()).toEqual(Object.keys(MESSENGER_STATS).sort());
    for (const [command, name] of Object.entries(COMMANDS)) {
      const { path } = MESSENGER_STATS[name];
      const result = await run(
        ['stats', command, '--channel', '@shop', '--date', '2024-05-01', '--elapsed', '2'],
        { [`GET ${path}`]: { data: [] } },
      );
      expect(result.code, `${command}: ${result.err}`).toBe(0);
      expect(result.calls).toHaveLength(1);
      expect(Object.fromEntries(result.calls[0]?.query ?? [])).toEqual({
        msgrChId: '@shop',
        date: '20240501',
        elapsedDay: '2',
      });
      expect(result.out).toBe('(no statistics for this day)');
    }
  });

  it('prints the read counts as a table, elapsed 0 by default', async () => {
    // Act
    const result = await run(
      ['stats', 'channel-notice-read', '--channel', '@shop', '--date', '2024-05-01'],
      {
        'GET /msgr/v2/stat/msgrChId/noticeRead': {
          data: [
            {
              date: '20240501',
              msgrChId: '@shop',
              messageType: 'AT',
              receiveUserType: 'PhoneNumber',
              readCount: 42,
            },
            {
              date: '20240501',
              msgrChId: '@shop',
              messageType: 'AI',
              receiveUserType: 'AppUserId',
              readCount: 7,
            },
          ],
        },
      },
    );

    // Assess
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.query.get('elapsedDay')).toBe('0');
    expect(result.out.split('\n')).toEqual([
      'DATE      TYPE  RECEIVER     READS',
      '20240501  AT    PhoneNumber     42',
      '20240501  AI    AppUserId        7',
    ]);
  });

  it('prints click details as compact JSON cells, and the typed answer with --json', async () => {
    const data = [
      {
        date: '20240501',
        msgrChId: '@shop',
        templateCode: 'order_shipped',
        messageType: 'AT',
        clickInfo: { buttonOrders: [3], buttonType: { WL: 3 }, qrType: {}, etc: 1 },
      },
    ];
    const script = { 'GET /msgr/v2/stat/template/noticeClick': { data } };
    const args = ['stats', 'template-notice-click', '--channel', '@shop', '--date', '20240501'];
    const human = await run(args, script);
    const json = await run([...args, '--json'], script);
    expect(human.out).toMatch(/^20240501\s+order_shipped\s+AT\s+\[3\]\s+\{"WL":3\}\s+\{\}\s+1$/m);
    expect(JSON.parse(json.out)).toEqual({
      statistic: 'templateNoticeClick',
      msgrChId: '@shop',
      date: '20240501',
      elapsedDay: '0',
      rows: data,
    });
  });

  it('answers usage errors with exit 2 before calling the gateway', async () => {
    const cases = [
      [['--date', '2024-05-01'], '--channel is required'],
      [['--channel', '@shop'], '--date is required'],
      [['--channel', '@shop', '--date', '2024-05-01 10:00'], '--date must be a date, YYYY-MM-DD'],
      [
        ['--channel', '@shop', '--date', '2024-05-01', '--elapsed', '3'],
        '--elapsed must be a whole number from 0 to 2',
      ],
    ] as const;
    for (const [args, message] of cases) {
      const result = await run(['stats', 'channel-brand-read', ...args]);
      expect(result.code, message).toBe(2);
      expect(result.err).toContain(`msgbridge stats channel-brand-read: ${message}`);
      expect(result.calls).toEqual([]);
    }
  });

  it('lists every problem of an impossible date and prints a refusal with its code', async () => {
    const impossible = await run(
      words('stats channel-brand-read --channel @shop --date 2024-02-30'),
    );
    expect(impossible.code).toBe(1);
    expect(impossible.err).toContain('date: 20240230 is not a real calendar date');

    const refused = await run(
      words('stats channel-brand-read --channel @nobody --date 2024-05-01'),
      { 'GET /msgr/v2/stat/msgrChId/brandRead': refusal('22601', 'unknown channel @nobody') },
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      'msgbridge stats channel-brand-read: the gateway refused: 22601 unknown channel @nobody',
    );
  });
});
