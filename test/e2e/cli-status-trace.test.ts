/**
 * `msgbridge status` and `msgbridge trace` end to end against a local run: a message is sent
 * through the CLI, its report arrives, and both commands show its stored steps in order.
 */
import { describe, expect, it } from 'vitest';
import { sendSmsArgs, useCliLocalRun } from '../support/cli-local-run.ts';
import { waitFor } from '../support/e2e-wait.ts';

const { msgbridge, bridge } = useCliLocalRun({ name: 'cli-status-trace', seed: 5 });
const PHONE = '01055557777';
const CLI_KEY = 'cli-trace-1';

describe('msgbridge status and trace against the local run', () => {
  it('show a sent message from its acceptance to its report, in order, phone masked', async () => {
    const sent = await msgbridge(...sendSmsArgs({ to: PHONE, text: 'trace me', key: CLI_KEY }));
    expect(sent.code, sent.stderr).toBe(0);
    const reported = () =>
      bridge()
        .bus.details('Delivery Report Received')
        .some((detail) => String(detail.data.cliKey) === CLI_KEY);
    expect(await waitFor(reported, 60_000)).toBe(true);

    const traced = await msgbridge('trace', CLI_KEY, '--json');
    expect(traced.code, traced.stderr).toBe(0);
    const trace = JSON.parse(traced.stdout);
    expect(trace.cliKey).toBe(CLI_KEY);
    expect(trace.msgKey).toEqual(expect.any(String));
    const items: string[] = trace.entries.map(
      (entry: { pk: string; sk: string }) => `${entry.pk} ${entry.sk}`,
    );
    // "Message Accepted" is off (the default): the acceptance is the send record's.
    const outcome = items.indexOf(`SEND#${CLI_KEY} MESSAGE accepted.${CLI_KEY}`);
    const report = items.findIndex((item) => item.startsWith(`REPORT#${trace.msgKey} RESULT#`));
    expect(outcome, items.join('\n')).toBeGreaterThanOrEqual(0);
    expect(report, items.join('\n')).toBeGreaterThan(outcome);
    expect(traced.stdout).not.toContain(PHONE);

    // The same message found by its msgKey, through the report.
    const byMsgKey = await msgbridge('trace', trace.msgKey);
    expect(byMsgKey.code, byMsgKey.stderr).toBe(0);
    expect(byMsgKey.stdout).toContain(`cliKey ${CLI_KEY}`);
    expect(byMsgKey.stdout).toContain('Message Accepted (not published)');
    expect(byMsgKey.stdout.indexOf(`MESSAGE accepted.${CLI_KEY}`)).toBeLessThan(
      byMsgKey.stdout.indexOf('RESULT#'),
    );
    expect(byMsgKey.stdout).not.toContain(PHONE);

    const status = await msgbridge('status', CLI_KEY, '--json');
    expect(status.code, status.stderr).toBe(0);
    const [row] = JSON.parse(status.stdout);
    expect(row.cliKey).toBe(CLI_KEY);
    expect(row.gateway).toMatchObject({ cliKey: CLI_KEY, msgKey: trace.msgKey });
    expect(['REG', 'ING', 'DONE']).toContain(row.gateway.status);
    expect(row.stored.map((entry: { sk: string }) => entry.sk)).toContain(
      `MESSAGE accepted.${CLI_KEY}`,
    );
    expect(status.stdout).not.toContain(PHONE);
  });

  it('trace fails for a key nothing is stored under', async () => {
    const run = await msgbridge('trace', 'no-such-key');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing stored for no-such-key');
  });
});
