import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalEventBus } from '../../local/event-bus.ts';
import { formatGatewayTime, formatTime, formatTimesIn } from '../../ops/times.ts';

describe('how an operator reads a time', () => {
  it('shows an instant in KST with its zone, across the date line', () => {
    expect(formatTime('2026-12-07T04:05:09.120Z')).toBe('2026-12-07 13:05:09 KST');
    expect(formatTime('2026-12-07T15:30:00Z')).toBe('2026-12-08 00:30:00 KST');
    expect(formatTime(Date.UTC(2026, 11, 31, 20, 0, 0))).toBe('2027-01-01 05:00:00 KST');
    expect(formatTime(new Date('2026-12-07T04:05:09Z'), 'KST', { millis: true })).toBe(
      '2026-12-07 13:05:09.000 KST',
    );
  });

  it('shows it in UTC with its zone when asked', () => {
    expect(formatTime('2026-12-07T04:05:09.120Z', 'UTC')).toBe('2026-12-07 04:05:09 UTC');
    expect(formatTime('2026-12-07T04:05:09.120Z', 'UTC', { millis: true })).toBe(
      '2026-12-07 04:05:09.120 UTC',
    );
  });

  it('leaves what is not a time as it is', () => {
    expect(formatTime('soon')).toBe('soon');
  });

  it('shows every ISO 8601 instant in a text by the same rule, and nothing else', () => {
    const text =
      'valid for 40 more min, renewed 2026-11-24T11:56:00.000Z (claimed until 2026-11-24T12:00:00Z); msgKey 2026-11-24';
    expect(formatTimesIn(text)).toBe(
      'valid for 40 more min, renewed 2026-11-24 20:56:00 KST (claimed until 2026-11-24 21:00:00 KST); msgKey 2026-11-24',
    );
    expect(formatTimesIn(text, 'UTC')).toBe(
      'valid for 40 more min, renewed 2026-11-24 11:56:00 UTC (claimed until 2026-11-24 12:00:00 UTC); msgKey 2026-11-24',
    );
  });
});

describe("the gateway's date-times", () => {
  it('are KST wall-clock times: shown with the zone, or in UTC', () => {
    expect(formatGatewayTime('2024-05-01 10:00:00')).toBe('2024-05-01 10:00:00 KST');
    expect(formatGatewayTime('20240501100000')).toBe('2024-05-01 10:00:00 KST');
    expect(formatGatewayTime('2024-05-01 08:30', 'UTC')).toBe('2024-04-30 23:30:00 UTC');
  });

  it('leave a calendar day, a value that is no date-time and an impossible one as they are', () => {
    expect(formatGatewayTime('2024-01-02')).toBe('2024-01-02');
    expect(formatGatewayTime('N')).toBe('N');
    expect(formatGatewayTime('2024-02-30 10:00:00')).toBe('2024-02-30 10:00:00');
  });
});

describe("npm start's event lines", () => {
  it('begin with the time in KST with its zone; the events file keeps ISO 8601 in UTC', async () => {
    // Prepare
    const printed: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-times-'));
    const bus = new LocalEventBus(join(dir, 'events.jsonl'), (line) => printed.push(line));

    try {
      // Act
      await bus.putEvents([
        {
          Source: 'msgbridge',
          DetailType: 'Message Accepted',
          Detail: JSON.stringify({ metadata: {}, data: { cliKey: 'order-1' } }),
          Time: new Date('2026-12-07T04:05:09.120Z'),
        },
      ]);

      // Assess
      expect(printed).toEqual(['2026-12-07 13:05:09 KST ▸ Message Accepted  cliKey=order-1']);
      const line = JSON.parse(readFileSync(join(dir, 'events.jsonl'), 'utf8'));
      expect(line.time).toBe('2026-12-07T04:05:09.120Z');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
