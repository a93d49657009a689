/**
 * `msgbridge validate` on a file with a message nested 20,000 arrays deep (issue 35, item 6): the
 * line is reported like any invalid message, with the file, the line and the path, never a stack
 * trace, and the other lines are still checked.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING_LEVELS } from '../../functions/send-contract/queue-message.ts';

const root = join(import.meta.dirname, '../..');

/** `node bin/msgbridge-cli.mjs ARGS…` (the `msgbridge` command) from the repository root. */
const msgbridge = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('node', ['bin/msgbridge-cli.mjs', ...args], { cwd: root }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });

const sms = (cliKey: string) =>
  JSON.stringify({
    channel: 'sms',
    callback: '0212345678',
    msg: '[msgbridge] 주문이 접수되었습니다.',
    recvInfoLst: [{ cliKey, phone: '01012345678' }],
  });

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'msgbridge-validate-nesting-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('msgbridge validate on a deeply nested message', () => {
  it('names the file, the line and the path, and checks the other lines', async () => {
    // Prepare: line 2 is a brand message whose coupon nests 20,000 arrays (about 40 KB)
    const depth = 20_000;
    const brand = JSON.stringify({
      channel: 'brand-free',
      targeting: 'I',
      msgrChId: '@shop',
      chatBubbleType: 'TEXT',
      callback: '0212345678',
      content: '신상품 안내',
      recvInfoLst: [{ cliKey: 'deep-1', phone: '01012345678' }],
    });
    const deep = `${brand.slice(0, -1)},"coupon":{"nested":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const path = join(dir, 'nested.jsonl');
    await writeFile(path, [sms('ok-1'), deep, sms('ok-3')].join('\n'));

    // Act
    const run = await msgbridge('validate', path);

    // Assess
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').filter((line) => line !== '')).toEqual([
      `${path}:2: $.coupon.nested${'[0]'.repeat(MAX_NESTING_LEVELS - 2)}: nested deeper than ${MAX_NESTING_LEVELS} levels of objects and arrays (the message itself is the first)`,
      '3 messages, 2 valid, 1 invalid',
    ]);
  });
});
