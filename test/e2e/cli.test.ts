/**
 * The msgbridge command end to end against a local run: the bridge is started the way
 * `npm start` starts it, bridge.json is written by the same function, and the CLI runs in
 * process through `main(argv, io)` with `--local DIR` (one test spawns the real bin).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import { sendSmsArgs, useCliLocalRun } from '../support/cli-local-run.ts';
import { waitFor } from '../support/e2e-wait.ts';

const root = join(import.meta.dirname, '../..');
const { dataDir, msgbridge, bridge } = useCliLocalRun({ name: 'cli-e2e', seed: 3 });
const startedAt = new Date();

/** The cliKeys the gateway accepted, by their delivery reports ("Message Accepted" is off). */
const acceptedKeys = () =>
  new Set(
    bridge()
      .bus.details('Delivery Report Received')
      .map((detail) => String(detail.data.cliKey)),
  );

const sms = (cliKey: string, phone = '01055550001') => ({
  channel: 'sms',
  callback: '0215880000',
  msg: '[msgbridge] CLI test',
  recvInfoLst: [{ cliKey, phone }],
});

describe('msgbridge against the local run', () => {
  it('send: queues every message of a file and each is accepted', async () => {
    // Prepare
    const file = join(dataDir, 'three.jsonl');
    const keys = ['cli-send-1', 'cli-send-2', 'cli-send-3'];
    writeFileSync(
      file,
      keys.map((key, i) => JSON.stringify(sms(key, `0105555000${i}`))).join('\n'),
    );

    // Act
    const run = await msgbridge('send', file, '--json');

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout) as { queued: number; cliKeys: string[] };
    expect(answer.queued).toBe(3);
    expect(answer.cliKeys).toEqual(keys);
    expect(await waitFor(() => keys.every((key) => acceptedKeys().has(key)), 30_000)).toBe(true);
  });

  it('send: refuses the whole file when one message is invalid, and queues nothing', async () => {
    const file = join(dataDir, 'mixed.json');
    writeFileSync(
      file,
      JSON.stringify([sms('cli-mixed-1'), { ...sms('cli-mixed-2'), callback: '' }]),
    );
    const run = await msgbridge('send', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('1 of 2 messages invalid; nothing was queued');
    expect(run.stderr).toContain(`${file}#1: $.callback`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(acceptedKeys().has('cli-mixed-1')).toBe(false);
  });

  it('send: one SMS from flags', async () => {
    const run = await msgbridge(
      ...sendSmsArgs({ to: '01055559999', text: 'hello', key: 'cli-flags-1' }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('queued 1 of 1 messages (1 recipients)');
    expect(await waitFor(() => acceptedKeys().has('cli-flags-1'), 30_000)).toBe(true);
  });

  it('optout: add, list (masked unless --reveal), remove', async () => {
    const added = await msgbridge('optout', 'add', '01077778888');
    expect(added.code, added.stderr).toBe(0);

    const listed = await msgbridge('optout', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('010****8888');
    expect(listed.stdout).not.toContain('01077778888');
    const revealed = await msgbridge('optout', 'list', '--reveal');
    expect(revealed.stdout).toContain('01077778888');

    const removed = await msgbridge('optout', 'remove', '01077778888');
    expect(removed.code, removed.stderr).toBe(0);
    const after = await msgbridge('optout', 'list', '--json');
    const data = JSON.parse(after.stdout) as {
      rejectList: Array<{ phone: string; delYn: string }>;
    };
    expect(
      data.rejectList.filter((entry) => entry.phone === '01077778888' && entry.delYn !== 'Y'),
    ).toEqual([]);
    const human = await msgbridge('optout', 'list');
    expect(human.stdout).not.toContain('010****8888');
  });

  it('urls: create, list, stats, delete', async () => {
    const expires = formatKst(Date.now() + 7 * 24 * 3600 * 1000, 'YYYY-MM-DD HH:mm:ss');
    const created = await msgbridge(
      'urls',
      'create',
      '--title',
      'cli e2e',
      '--url',
      'https://example.com/cli',
      '--expires',
      expires,
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const { urlId } = JSON.parse(created.stdout) as { urlId: string };
    expect(urlId).toMatch(/^\d+$/);

    const listed = await msgbridge('urls', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${urlId}\\s+cli e2e\\s+https://example.com/cli`, 'm'),
    );

    const today = formatKst(Date.now(), 'YYYY-MM-DD');
    const stats = await msgbridge('urls', 'stats', urlId, '--from', today, '--to', today, '--json');
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ view: 'url', urlId });

    const deleted = await msgbridge('urls', 'delete', urlId);
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = await msgbridge('urls', 'list', '--json');
    const { urls } = JSON.parse(after.stdout) as { urls: Array<{ urlId: string }> };
    expect(urls.map((url) => url.urlId)).not.toContain(urlId);
  });

  it('a gateway refusal prints its code and message and exits 1', async () => {
    const run = await msgbridge('urls', 'delete', '999999999');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^msgbridge urls delete: the gateway refused: \d+ /);
  });

  it('dlq redrive: a message in the DLQ goes back to the queue and is sent', async () => {
    // Prepare
    await bridge().sqs.send(
      new SendMessageCommand({
        QueueUrl: bridge().urls.sendDlq,
        MessageBody: JSON.stringify(sms('cli-dlq-1')),
        MessageAttributes: { origin: { DataType: 'String', StringValue: 'cli-e2e' } },
      }),
    );

    // Act
    const run = await msgbridge('dlq', 'redrive', '--json');

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ moved: 1, notSent: [], notDeleted: [] });
    expect(await waitFor(() => acceptedKeys().has('cli-dlq-1'), 30_000)).toBe(true);
    const again = await msgbridge('dlq', 'redrive', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ moved: 0 });
  });

  it('events replay: the events of the range appear again with the replay name', async () => {
    // Prepare: everything published so far in this file.
    const original = bridge().bus.entries.filter((entry) => entry.Time >= startedAt).length;
    expect(original).toBeGreaterThan(0);
    const from = new Date(startedAt.getTime() - 1_000).toISOString();
    const to = new Date(Date.now() + 1_000).toISOString();

    // Act
    const run = await msgbridge(
      'events',
      'replay',
      '--from',
      from,
      '--to',
      to,
      '--name',
      'cli-e2e-replay',
    );

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const replayed = bridge().bus.replayed.filter((r) => r.replayName === 'cli-e2e-replay');
    expect(replayed.length).toBeGreaterThanOrEqual(original);
    // The range as an operator reads times (KST, its zone shown), then the count.
    expect(run.stdout).toMatch(
      new RegExp(
        `replay cli-e2e-replay \\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d KST to \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d KST\\): ${replayed.length} events put on the local bus again`,
      ),
    );
    const lines = readFileSync(bridge().urls.eventsFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"replay-name":"cli-e2e-replay"'));
    expect(lines).toHaveLength(replayed.length);
  });
});

describe('the msgbridge bin', () => {
  it('runs through bin/msgbridge-cli.mjs against the local run', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['bin/msgbridge-cli.mjs', 'urls', 'list', '--json', '--local', dataDir],
        { cwd: root },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr }),
      );
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ page: 1, urls: expect.any(Array) });
  });
});
