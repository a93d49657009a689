/**
 * What an operator is shown of stored text: phone numbers masked in every spelling people write
 * them (unless the operator searched for that number), and control characters shown, not obeyed
 * by the terminal (escape sequences that clear the screen or set the title).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/io.ts';
import { Output } from '../../cli/output.ts';
import { maskPhonesDeep, maskPhonesInText } from '../../functions/commons/helpers/mask.ts';
import { terminalSafe } from '../../functions/commons/helpers/terminal.ts';
import { LocalEventBus } from '../../local/event-bus.ts';
import { revealingMask } from '../../ops/phone-search.ts';
import { toEntry } from '../../ops/trace.ts';

describe('phone numbers in stored text', () => {
  it.each([
    ['010 9012 3456', '010****3456'],
    ['+82 10 5678 9012', '821*****9012'],
    ['010.6789.0123', '010****0123'],
    ['010-1234-5678', '010****5678'],
    ['01012345678', '010****5678'],
    ['+82-10-1234-5678', '821*****5678'],
    ['+821012345678', '821*****5678'],
    ['+82 (0)10 1234 5678', '820******5678'],
    ['02-123-4567', '021**4567'],
    ['(02) 123-4567', '021**4567'],
    ['031 123 4567', '031***4567'],
    ['0505-123-4567', '050****4567'],
  ])('masks %s in free text', (spelled, masked) => {
    expect(maskPhonesInText(`call me at ${spelled} please`)).toBe(`call me at ${masked} please`);
  });

  it.each(['2026-11-21 09:30:15', 'msgKey 2026112100001234', 'order 12345678', '10000'])(
    'leaves %s alone',
    (text) => {
      expect(maskPhonesInText(text)).toBe(text);
    },
  );

  it("masks an inbound message's sender, receiving number and text, and a quarantined body", () => {
    const masked = maskPhonesDeep({
      sender: '01056789012',
      receivingNumber: '15880000',
      text: '제 번호는 010 9012 3456 입니다',
      raw: '{"moCallback":"+82 10 5678 9012","note":"010.6789.0123"}',
    });

    expect(JSON.stringify(masked)).not.toMatch(/9012 3456|5678 9012|6789\.0123|01056789012/);
    expect(masked).toMatchObject({ sender: '010****9012', receivingNumber: '158*0000' });
  });

  it('shows the number the operator searched for, in any spelling, and masks the others', () => {
    const mask = revealingMask('01090123456');

    const shown = mask({ sender: '010-9012-3456', text: 'also 010 5555 6666' }) as Record<
      string,
      string
    >;

    expect(shown.sender).toBe('010-9012-3456');
    expect(shown.text).toBe('also 010****6666');
  });

  it('are masked in a trace entry, as the console and `msgbridge trace` show it', () => {
    const entry = toEntry({
      pk: 'MO#MO-1',
      sk: 'MO',
      detailType: 'Inbound Message Received',
      detail: JSON.stringify({
        metadata: { receivedAt: '2026-11-28T00:00:00Z', via: 'webhook' },
        data: { moKey: 'MO-1', sender: '+82 10 5678 9012', text: '010.6789.0123 로 연락' },
      }),
    });

    expect(JSON.stringify(entry)).not.toMatch(/5678 9012|6789\.0123/);
  });
});

describe('control characters on the terminal', () => {
  const HOSTILE = 'ok\u001b]0;owned\u0007\u001b[2J\u009b31m\u202ecba\rdone';

  it('are written as visible escapes, line feeds and tabs kept', () => {
    expect(terminalSafe(`${HOSTILE}\nnext\tcolumn`)).toBe(
      'ok\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202ecba\\x0ddone\nnext\tcolumn',
    );
  });

  it('are escaped in every human line, table and note of the CLI, and left to JSON with --json', () => {
    const lines: string[] = [];
    const io: CliIo = {
      stdout: (line) => lines.push(line),
      stderr: (line) => lines.push(line),
      readFile: async () => '',
    };
    const human = new Output(io, false);
    human.line(HOSTILE);
    human.table([{ value: HOSTILE }], [{ header: 'VALUE', key: 'value' }]);
    human.note(HOSTILE);
    new Output(io, true).emit({ value: HOSTILE }, () => undefined);

    // Nothing is left that the terminal would obey.
    for (const line of lines.slice(0, 4)) expect(terminalSafe(line)).toBe(line);
    expect(JSON.parse(lines[4] ?? '{}')).toEqual({ value: HOSTILE });
  });

  it("are escaped in the local run's event lines", async () => {
    const printed: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-bus-'));
    const bus = new LocalEventBus(join(dir, 'events.jsonl'), (line) => printed.push(line));

    await bus.putEvents([
      {
        Source: 'msgbridge',
        DetailType: 'Delivery Report Received',
        Detail: JSON.stringify({ metadata: {}, data: { msgKey: HOSTILE, resultCode: '10000' } }),
        Time: new Date('2026-11-28T00:00:00Z'),
      },
    ]);

    expect(printed.join('\n')).toContain('ok\\x1b]0;owned\\x07');
    for (const line of printed) expect(terminalSafe(line)).toBe(line);
    rmSync(dir, { recursive: true, force: true });
  });
});
