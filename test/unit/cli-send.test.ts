import { describe, expect, it } from 'vitest';
import type { Target } from '../../ops/target.ts';
import { words } from '../support/cli-command-line.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';

/** Runs `msgbridge ARGS…` on `files`; answers the output and whether the target was asked for. */
const run = async (args: string[], files: Record<string, string> = {}) => {
  let targetAsked = false;
  const result = await runCli(
    args,
    {
      resolveTarget: async (): Promise<Target> => {
        targetAsked = true;
        throw new Error('no target in these tests');
      },
    },
    captureIo({ files }),
  );
  return { code: result.code, out: result.stdout, err: result.stderr, targetAsked };
};

const sms = (cliKey: string, callback = '0215880000') => ({
  channel: 'sms',
  callback,
  msg: 'hello',
  recvInfoLst: [{ cliKey, phone: '01012345678' }],
});

describe('msgbridge send', () => {
  it('needs FILEs or the message flags, not both and not neither', async () => {
    const neither = await run(['send']);
    expect(neither.code).toBe(2);
    expect(neither.err).toContain(
      'msgbridge send: give FILEs, or --channel, --from, --to and --text',
    );
    const both = await run(['send', 'a.json', '--channel', 'sms']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('give FILEs or --channel/--to/--text, not both');
    const fax = await run(['send', '--channel', 'fax', '--from', '1', '--to', '2', '--text', 'x']);
    expect(fax.code).toBe(2);
    expect(fax.err).toContain('--channel must be sms or lms');
    expect([neither, both, fax].some((r) => r.targetAsked)).toBe(false);
  });

  it('lists every problem of every file and never reaches the target when one is invalid', async () => {
    // Prepare
    const files = {
      'a.json': JSON.stringify([sms('a-1'), sms('a-2', '')]),
      'b.jsonl': `${JSON.stringify(sms('b-1'))}\n{oops\n`,
    };

    // Act
    const result = await run(['send', 'a.json', 'b.jsonl', 'missing.json'], files);

    // Assess
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'msgbridge send: 2 of 4 messages invalid, 1 file unreadable; nothing was queued',
    );
    expect(result.err).toContain('msgbridge send:   a.json#1: $.callback');
    expect(result.err).toContain('msgbridge send:   b.jsonl:2: $: not valid JSON');
    expect(result.err).toContain('msgbridge send:   missing.json: cannot read');
    expect(result.targetAsked).toBe(false);
  });

  it('queues nothing from files that use one cliKey twice', async () => {
    const files = {
      'a.json': JSON.stringify(sms('k-1')),
      'b.json': JSON.stringify(sms('k-1', '0212345678')),
    };

    const result = await run(['send', 'a.json', 'b.json'], files);

    expect(result.code).toBe(1);
    expect(result.err).toContain('msgbridge send: 1 of 2 messages invalid; nothing was queued');
    expect(result.err).toContain(
      'msgbridge send:   b.json: $.recvInfoLst[0].cliKey: cliKey "k-1" is already used by a.json',
    );
    expect(result.targetAsked).toBe(false);
  });

  it('checks a message from flags with the sender rules before reaching the target', async () => {
    const result = await run([
      ...words('send --channel sms --from 0215880000 --to 01012345678 --text'),
      '가'.repeat(60),
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('msgbridge send: the message is invalid; nothing was queued');
    expect(result.err).toMatch(/\$\.msg: .*90/);
    expect(result.targetAsked).toBe(false);
  });
});
