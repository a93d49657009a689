import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { Target } from '../../ops/target.ts';
import { words } from '../support/cli-command-line.ts';
import { fakeTable, type Item } from '../support/cli-event-table.ts';
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

describe('msgbridge send, a second time', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());

  /** A local run whose queue takes every message and whose event table holds `items`. */
  const runOn = (items: readonly Item[]) => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: Array<{ Id?: string }> }) => ({
      Successful: (input.Entries ?? []).map((entry) => ({
        Id: entry.Id,
        MessageId: `q-${entry.Id}`,
        MD5OfMessageBody: '',
      })),
      Failed: [],
    }));
    const table = fakeTable(items);
    const target = {
      kind: 'local',
      describe: () => 'the local run',
      sqs: new SQSClient({ region: 'ap-northeast-2' }),
      queues: { send: 'http://queue/send', dlq: 'http://queue/dlq' },
      tables: { events: 'events', state: 'state' },
      documents: table.documents,
    } as unknown as Target;
    return { target, ops: table.ops };
  };

  const order = (cliKeys: readonly string[]) => ({
    channel: 'sms',
    callback: '0215880000',
    msg: 'hello',
    recvInfoLst: cliKeys.map((cliKey) => ({ cliKey, phone: '01012345678' })),
  });
  const FILE = {
    'messages.jsonl': `${JSON.stringify(order(['order-1', 'order-2']))}\n${JSON.stringify(order(['order-3']))}\n`,
  };
  // What the sender left of the first send: the first message's record lists both acceptances;
  // order-3's message was refused by the gateway (a record and its outcome item).
  const SENT: Item[] = [
    {
      pk: 'SEND#order-1',
      sk: 'MESSAGE',
      owner: '1#a',
      claimedUntil: 0,
      'accepted#order-1': { t: 1_764_000_000, m: 'm-1' },
      'accepted#order-2': { t: 1_764_000_000, m: 'm-2' },
    },
    { pk: 'SEND#order-3', sk: 'MESSAGE', owner: '1#b', claimedUntil: 0 },
    { pk: 'SEND#order-3', sk: 'OUTCOME', detailType: 'Message Rejected' },
  ];

  const send = (items: readonly Item[], ...extra: string[]) => {
    const { target, ops } = runOn(items);
    return runCli(
      ['send', 'messages.jsonl', ...extra],
      { resolveTarget: async () => target },
      captureIo({ files: FILE }),
    ).then((result) => ({ ...result, ops }));
  };

  it('says which cliKeys were already sent, that the sender skips them and what to do', async () => {
    // Act
    const first = await send([]);
    const again = await send(SENT);

    // Assess
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('queued 2 of 2 messages (3 recipients) on the local run');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      [
        'queued 2 of 2 messages (3 recipients) on the local run',
        '3 cliKeys were already sent (order-1, order-2, order-3): the sender skips them; use new cliKeys to send again',
      ].join('\n'),
    );
    // By key only: each message's record, and order-3's own partition for its outcome.
    expect(again.ops.every((op) => op.startsWith('Query SEND#'))).toBe(true);
  });

  it('lists them under alreadySent with --json', async () => {
    const again = await send(SENT, '--json');

    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      queued: 2,
      cliKeys: ['order-1', 'order-2', 'order-3'],
      alreadySent: ['order-1', 'order-2', 'order-3'],
    });
  });

  it('names none of a message that has no send record yet', async () => {
    // An outcome item alone (another message's, by a producer's mistake): the sender would send.
    const again = await send([{ pk: 'SEND#order-3', sk: 'OUTCOME' }]);

    expect(again.stdout).toBe('queued 2 of 2 messages (3 recipients) on the local run');
  });
});
