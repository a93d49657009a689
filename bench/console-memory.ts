/**
 * Scenario `console-memory`: what the operator console costs a local run with a long history.
 * It writes an events file of `megabytes` (events of 200 KiB and of 1 KiB, as a run with large
 * reports has), then polls the flow page's live feed as an open tab does (every poll reads what
 * was appended since the last one), appends a few events between polls, and shows one message's
 * timeline (which streams the file for that message's events).
 *
 * Figures: the process's resident memory before and at its peak (sampled every 20 ms), bytes read
 * per poll, and the time of the first poll (the one that reads the whole file once) and of the
 * following ones.
 */
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLogReader } from '../console/event-log.ts';
import { figuresTable, median, round, type ScenarioResult } from './report.ts';

const MiB = 1024 * 1024;

const eventLine = (index: number, bytes: number): string =>
  `${JSON.stringify({
    time: new Date(Date.UTC(2026, 10, 28, 0, 0, 0, index)).toISOString(),
    source: 'msgbridge',
    'detail-type': 'Delivery Report Received',
    detail: {
      metadata: { id: `00000000-0000-8000-8000-${String(index).padStart(12, '0')}` },
      data: { msgKey: `M${index}`, resultCode: '10000', resultCodeDesc: 'x'.repeat(bytes) },
    },
  })}\n`;

export const runConsoleMemory = async (megabytes = 400): Promise<ScenarioResult> => {
  const dir = mkdtempSync(join(tmpdir(), 'msgbridge-console-memory-'));
  const file = join(dir, 'events.jsonl');
  try {
    // Prepare: the history, written in pieces (a fifth of the events are large).
    let index = 0;
    let chunk = '';
    while (index === 0 || statSync(file).size < megabytes * MiB) {
      for (let i = 0; i < 200; i += 1, index += 1)
        chunk += eventLine(index, index % 5 === 0 ? 200 * 1024 : 1024);
      appendFileSync(file, chunk);
      chunk = '';
    }
    const fileBytes = statSync(file).size;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);

    // Act: the live feed's polls, with new events between them, then a message's timeline.
    const reader = new EventLogReader(file);
    const polls: number[] = [];
    const bytesPerPoll: number[] = [];
    for (let poll = 0; poll < 11; poll += 1) {
      if (poll > 0)
        for (let i = 0; i < 5; i += 1, index += 1) appendFileSync(file, eventLine(index, 1024));
      const read = reader.bytesRead;
      const started = performance.now();
      const { recent, lines } = await reader.refresh();
      polls.push(performance.now() - started);
      bytesPerPoll.push(reader.bytesRead - read);
      if (recent.length === 0 || lines !== index)
        throw new Error(`read ${lines} lines of ${index}`);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const timelineStarted = performance.now();
    const found = await reader.find(
      new Set([`00000000-0000-8000-8000-${String(7).padStart(12, '0')}`]),
    );
    const timelineMs = performance.now() - timelineStarted;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (found.length !== 1) throw new Error(`the timeline found ${found.length} events of one id`);

    const figures = {
      fileMiB: round(fileBytes / MiB, 1),
      events: index,
      rssBeforeMiB: round(before / MiB, 1),
      rssPeakMiB: round(peak / MiB, 1),
      rssGrowthMiB: round((peak - before) / MiB, 1),
      firstPollMs: round(polls[0] ?? Number.NaN, 0),
      laterPollMedianMs: round(median(polls.slice(1)), 2),
      laterPollMedianBytesRead: median(bytesPerPoll.slice(1)),
      timelineMs: round(timelineMs, 0),
    };
    return {
      figures,
      tables: [
        figuresTable(`console on a ${figures.fileMiB} MiB events file (${index} events)`, [
          ['resident memory before, MiB', figures.rssBeforeMiB],
          ['resident memory at peak, MiB', figures.rssPeakMiB],
          ['growth while polling, MiB', figures.rssGrowthMiB, 'bounded, not the file'],
          [
            'bytes read per later poll (median)',
            figures.laterPollMedianBytesRead,
            'what was appended',
          ],
          ['first poll, ms (reads the file once)', figures.firstPollMs],
          ['later poll, ms (median)', figures.laterPollMedianMs],
          ['a message timeline, ms (streams the file)', figures.timelineMs],
        ]),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
