import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import { msgbridge } from '../support/child-runs.ts';
import { useTempDirs } from '../support/temp-dirs.ts';

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

const sms = (cliKey: string, extra: Record<string, unknown> = {}) => ({
  channel: 'sms',
  callback: '0212345678',
  msg: '[msgbridge] 주문이 접수되었습니다.',
  recvInfoLst: [{ cliKey, phone: '01012345678' }],
  ...extra,
});

const tempDir = useTempDirs('validate');
const file = async (name: string, content: string): Promise<string> => {
  const path = join(tempDir(), name);
  await writeFile(path, content);
  return path;
};

describe('msgbridge validate', () => {
  it('accepts a file holding one valid object, scheduled against the current time', async () => {
    // Prepare
    const inTwoDays = formatKst(Date.now() + 2 * 24 * 60 * 60 * 1000, 'YYYY-MM-DD HH:mm');
    const path = await file(
      'one.json',
      JSON.stringify(sms('a-1', { resvYn: 'Y', resvReqDt: inTwoDays }), null, 2),
    );

    // Act
    const run = await msgbridge('validate', path);

    // Assess
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual(['1 message, 1 valid, 0 invalid']);
  });

  it('names each invalid message of an array by its index, with every problem path', async () => {
    // Prepare
    const path = await file(
      'array.json',
      JSON.stringify([
        sms('b-1'),
        sms('b-2', { msg: '가'.repeat(46), resvYn: 'Y', resvReqDt: '2020-01-01 09:00' }),
        { channel: 'fax' },
      ]),
    );

    // Act
    const run = await msgbridge('validate', path);

    // Assess
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      `${path}#1: $.msg: is 92 bytes counted as CP949 (Hangul 2 bytes each); SMS allows 90`,
      expect.stringMatching(new RegExp(`^${path}#1: \\$\\.resvReqDt: 2020-01-01 09:00 KST is not`)),
      expect.stringMatching(new RegExp(`^${path}#2: \\$\\.channel: "fax" is not a channel`)),
      '3 messages, 1 valid, 2 invalid',
    ]);
  });

  it('reads JSON lines, skipping blank lines and naming messages by line number', async () => {
    // Prepare
    const path = await file(
      'messages.jsonl',
      [
        JSON.stringify(sms('c-1')),
        '',
        JSON.stringify(sms('c 2')),
        JSON.stringify(sms('c-3')),
        '{"channel": "sms",',
        '',
      ].join('\n'),
    );

    // Act
    const run = await msgbridge('validate', path);

    // Assess
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(`^${path}:3: \\$\\.recvInfoLst\\[0\\]\\.cliKey: cliKey must`),
      ),
      expect.stringMatching(new RegExp(`^${path}:5: \\$: not valid JSON`)),
      '4 messages, 2 valid, 2 invalid',
    ]);
  });

  it('fails clearly on a file that is not JSON and on one that cannot be read', async () => {
    // Prepare
    const broken = await file('broken.json', '{\n  "channel": "sms",\n  "msg": \n}\n');
    const valid = await file('valid.json', JSON.stringify(sms('d-1')));
    const missing = join(tempDir(), 'missing.json');

    // Act
    const run = await msgbridge('validate', broken, valid, missing);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${broken}: cannot parse: not valid JSON, a JSON array or JSON lines`,
    );
    expect(run.stderr).toContain(`${missing}: cannot read: ENOENT`);
    expect(lines(run.stdout)).toEqual(['1 message, 1 valid, 0 invalid; 2 files unreadable']);
  });

  it('counts messages across files', async () => {
    // Prepare
    const first = await file('first.json', JSON.stringify([sms('e-1'), sms('e-2')]));
    const second = await file('second.json', JSON.stringify(sms('e-3', { callback: undefined })));

    // Act
    const run = await msgbridge('validate', first, second);

    // Assess
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      `${second}: $.callback: is required`,
      '3 messages, 2 valid, 1 invalid',
    ]);
  });
});

describe('msgbridge validate on a reused cliKey', () => {
  it('refuses one cliKey on two lines of a file, naming the line that used it first', async () => {
    // Prepare: the same cliKey with another text, as a careless producer would reuse it
    const path = await file(
      'reused.jsonl',
      [
        JSON.stringify(sms('r-1')),
        JSON.stringify(sms('r-2')),
        JSON.stringify(sms('r-1', { msg: '[msgbridge] 다른 내용' })),
      ].join('\n'),
    );

    // Act
    const run = await msgbridge('validate', path);

    // Assess
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      `${path}:3: $.recvInfoLst[0].cliKey: cliKey "r-1" is already used by ${path}:1: a cliKey names one message, so the sender would send the first and refuse this one`,
      '3 messages, 2 valid, 1 invalid',
    ]);
  });
});

describe('the example file the README sends', () => {
  it('is valid as committed: npx msgbridge send messages.jsonl queues every message of it', async () => {
    const run = await msgbridge('validate', 'messages.jsonl');

    expect(run.code).toBe(0);
    expect(lines(run.stdout).at(-1)).toBe('2 messages, 2 valid, 0 invalid');
  });
});

describe('msgbridge usage', () => {
  it('prints usage with --help and exits 0', async () => {
    const run = await msgbridge('--help');

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: msgbridge COMMAND');
    expect(run.stdout).toContain('validate');
  });

  it('prints the command usage with validate --help and exits 0', async () => {
    const run = await msgbridge('validate', '--help');

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('msgbridge validate FILE…');
  });

  it('exits 2 with usage for an unknown command, no command, or validate without files', async () => {
    // Act
    const [unknown, none, noFiles, badOption] = await Promise.all([
      msgbridge('deploy'),
      msgbridge(),
      msgbridge('validate'),
      msgbridge('validate', '--strict', 'x.json'),
    ]);

    // Assess
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "deploy"');
    expect(unknown.stderr).toContain('Usage: msgbridge COMMAND');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: msgbridge COMMAND');
    expect(noFiles.code).toBe(2);
    expect(noFiles.stderr).toContain('validate needs at least one FILE');
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('unknown option --strict');
  });
});
