import type { LocalEventLine } from '../cli/replay.ts';
import type { Target } from '../cli/target.ts';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';

/*
 * The events as they were put on the bus. The local run's bus appends every event to its events
 * file (the file `msgbridge events replay` reads); a deployed stack's bus keeps no log that can be
 * read without adding a rule to it, so there the console has none (`undefined`).
 */

/** One event as published: masked data, never the raw line. */
export interface PublishedEvent {
  /** Its line number in the events file (1-based), for "events after N". */
  readonly line: number;
  readonly time: string;
  readonly detailType: string;
  readonly id: string | undefined;
  readonly replayName: string | undefined;
  readonly data: Record<string, unknown>;
}

const parse = (line: string, index: number): PublishedEvent[] => {
  if (line.trim() === '') return [];
  let event: LocalEventLine;
  try {
    event = JSON.parse(line) as LocalEventLine;
  } catch {
    return [];
  }
  const detail = (event.detail ?? {}) as { metadata?: { id?: unknown }; data?: unknown };
  const data = maskPhonesDeep(detail.data ?? {});
  return [
    {
      line: index + 1,
      time: String(event.time),
      detailType: String(event['detail-type']),
      id: typeof detail.metadata?.id === 'string' ? detail.metadata.id : undefined,
      replayName: event['replay-name'],
      data: data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {},
    },
  ];
};

/** Every event of the local run's events file, in order; `undefined` on a stack. */
export const readEventLog = async (
  target: Target,
  readFile: (path: string) => Promise<string>,
): Promise<PublishedEvent[] | undefined> => {
  if (target.events.kind !== 'local') return undefined;
  const text = await readFile(target.events.file).catch(() => '');
  return text.split('\n').flatMap(parse);
};
