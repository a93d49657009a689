/**
 * The console's reader of the local events file (console/event-log.ts) and the local bus's memory
 * (local/event-bus.ts): whatever the history, a poll reads what was appended since the last one
 * and keeps a bounded window, and the bus keeps a bounded tail of the events in memory.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLogReader } from '../../console/event-log.ts';
import { LocalEventBus } from '../../local/event-bus.ts';
import { useTempDirs } from '../support/temp-dirs.ts';

const freshDir = useTempDirs('event-log');
const fileIn = () => join(freshDir(), 'events.jsonl');

const id = (index: number) => `00000000-0000-8000-8000-${String(index).padStart(12, '0')}`;
const line = (index: number, text = '') =>
  `${JSON.stringify({
    time: `2026-11-28T00:00:${String(index % 60).padStart(2, '0')}.000Z`,
    'detail-type': 'Inbound Message Received',
    detail: {
      metadata: { id: id(index) },
      data: { moKey: `MO-${index}`, text: `${text}010 9012 3456`, sender: '01056789012' },
    },
  })}\n`;
const lines = (from: number, to: number, text = '') =>
  Array.from({ length: to - from }, (_, i) => line(from + i, text)).join('');

describe('the events file reader', () => {
  it('keeps the last events and the line count, and reads only what was appended', async () => {
    const file = fileIn();
    writeFileSync(file, lines(0, 500));
    const reader = new EventLogReader(file, 100, 4096);

    const first = await reader.refresh();
    const before = reader.bytesRead;
    const appended = lines(500, 503);
    appendFileSync(file, appended);
    const second = await reader.refresh();

    expect(first.lines).toBe(500);
    expect(first.recent).toHaveLength(100);
    expect(first.recent.at(-1)?.data).toEqual({ moKey: 'MO-499' });
    expect(second.lines).toBe(503);
    expect(second.recent.at(-1)).toMatchObject({ line: 503, id: id(502) });
    expect(reader.bytesRead - before).toBe(Buffer.byteLength(appended));
  });

  it('counts a long history without reading it as text, and keeps memory to the window', async () => {
    const file = fileIn();
    // 12 MiB of events of 40 KiB: more than the part a first poll reads as text.
    writeFileSync(file, lines(0, 300, 'x'.repeat(40 * 1024)));
    const reader = new EventLogReader(file, 50);

    const { lines: count, recent } = await reader.refresh();

    expect(count).toBe(300);
    expect(recent).toHaveLength(50);
    expect(recent.map((event) => event.line)).toEqual(
      Array.from({ length: 50 }, (_, i) => 251 + i),
    );
    // Only the fields the flow page shows are kept of each event.
    expect(JSON.stringify(recent).length).toBeLessThan(50 * 300);
  });

  it('waits for a line being written, and reads a character split between two reads', async () => {
    const file = fileIn();
    const whole = line(0, '한글 ');
    const cut = Buffer.from(whole).indexOf(Buffer.from('글')) + 1;
    writeFileSync(file, Buffer.from(whole).subarray(0, cut));
    const reader = new EventLogReader(file, 10, 7);

    const partial = await reader.refresh();
    appendFileSync(file, Buffer.from(whole).subarray(cut));
    const done = await reader.refresh();

    expect(partial).toEqual({ recent: [], lines: 0 });
    expect(done.lines).toBe(1);
    expect(done.recent[0]?.data).toEqual({ moKey: 'MO-0' });
  });

  it('reads a file that was truncated or rotated from its start', async () => {
    const file = fileIn();
    writeFileSync(file, lines(0, 20));
    const reader = new EventLogReader(file, 100);
    await reader.refresh();

    writeFileSync(file, lines(100, 102));
    const after = await reader.refresh();

    expect(after.lines).toBe(2);
    expect(after.recent.map((event) => event.id)).toEqual([id(100), id(101)]);
  });

  it("finds a message's events anywhere in the file, masked", async () => {
    const file = fileIn();
    writeFileSync(file, lines(0, 1_000));
    const reader = new EventLogReader(file, 10, 8192);

    const found = await reader.find(new Set([id(3), id(997)]));

    expect(found.map((event) => event.id)).toEqual([id(3), id(997)]);
    expect(JSON.stringify(found)).not.toMatch(/9012 3456|01056789012/);
  });
});

describe('the local bus', () => {
  it('keeps only the newest events in memory, all of them in its file', async () => {
    const file = fileIn();
    const bus = new LocalEventBus(file, undefined, 64 * 1024);
    const detail = JSON.stringify({ metadata: {}, data: { text: 'x'.repeat(8 * 1024) } });

    for (let i = 0; i < 40; i += 1)
      await bus.putEvents([
        {
          Source: 'msgbridge',
          DetailType: 'Inbound Message Received',
          Detail: detail,
          Time: new Date(i * 1000),
        },
      ]);

    expect(bus.entries.length).toBeLessThanOrEqual(4);
    expect(bus.entries.at(-1)?.Time.getTime()).toBe(39_000);
    const reader = new EventLogReader(file);
    expect((await reader.refresh()).lines).toBe(40);
  });
});
