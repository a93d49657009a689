/**
 * `msgbridge validate` on a file with a message nested 20,000 arrays deep (issue 35, item 6): the
 * line is reported like any invalid message, with the file, the line and the path, never a stack
 * trace, and the other lines are still checked.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_LEVELS } from '../../functions/send-contract/queue-message.ts';
import { msgbridge } from '../support/child-runs.ts';
import { brandFree } from '../support/queue-message-inputs.ts';
import { useTempDirs } from '../support/temp-dirs.ts';

const sms = (cliKey: string) =>
  JSON.stringify({
    channel: 'sms',
    callback: '0212345678',
    msg: '[msgbridge] 주문이 접수되었습니다.',
    recvInfoLst: [{ cliKey, phone: '01012345678' }],
  });

const tempDir = useTempDirs('validate-nesting');

describe('msgbridge validate on a deeply nested message', () => {
  it('names the file, the line and the path, and checks the other lines', async () => {
    // Prepare: line 2 is a brand message whose coupon nests 20,000 arrays (about 40 KB)
    const depth = 20_000;
    const brand = JSON.stringify({
      ...brandFree,
      recvInfoLst: [{ cliKey: 'deep-1', phone: '01012345678' }],
    });
    const deep = `${brand.slice(0, -1)},"coupon":{"nested":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const path = join(tempDir(), 'nested.jsonl');
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
