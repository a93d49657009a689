import {
  DescribeReplayCommand,
  type DescribeReplayCommandOutput,
  type EventBridgeClient,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { OperationError } from './errors.ts';

/*
 * Replaying events: from the archive into the bus on a deployed stack (EventBridge StartReplay),
 * or, locally, from the local bus's events file into the running bridge's bus.
 */

export const REPLAY_DONE_STATES: ReadonlySet<string> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
]);

export interface ArchiveReplayOptions {
  readonly client: EventBridgeClient;
  readonly name: string;
  readonly archiveArn: string;
  readonly busArn: string;
  readonly from: Date;
  readonly to: Date;
  /** Poll until the replay ends. @default true */
  readonly wait?: boolean;
  /** @default 5000 */
  readonly pollIntervalMs?: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Percent of the time range replayed so far (0–100), after every poll. */
  readonly onProgress?: (percent: number) => void;
}

export interface ArchiveReplayResult {
  readonly name: string;
  readonly arn: string | undefined;
  readonly state: string;
  readonly reason?: string;
  readonly lastReplayedTime?: string;
}

const percentDone = (answer: DescribeReplayCommandOutput, from: Date, to: Date): number => {
  if (answer.State === 'COMPLETED') return 100;
  const last = answer.EventLastReplayedTime?.getTime();
  if (last === undefined) return 0;
  const span = to.getTime() - from.getTime();
  return span <= 0
    ? 100
    : Math.max(0, Math.min(100, Math.floor(((last - from.getTime()) / span) * 100)));
};

/**
 * Starts an archive replay into the bus and, unless `wait` is false, polls `DescribeReplay`
 * until it is COMPLETED, FAILED or CANCELLED. A FAILED or CANCELLED replay is a {@link OperationError}.
 */
export const replayArchive = async (
  options: ArchiveReplayOptions,
): Promise<ArchiveReplayResult> => {
  const started = await options.client.send(
    new StartReplayCommand({
      ReplayName: options.name,
      EventSourceArn: options.archiveArn,
      EventStartTime: options.from,
      EventEndTime: options.to,
      Destination: { Arn: options.busArn },
    }),
  );
  const arn = started.ReplayArn;
  if (options.wait === false) {
    return { name: options.name, arn, state: started.State ?? 'STARTING' };
  }
  for (;;) {
    await options.sleep(options.pollIntervalMs ?? 5_000);
    const answer = await options.client.send(
      new DescribeReplayCommand({ ReplayName: options.name }),
    );
    options.onProgress?.(percentDone(answer, options.from, options.to));
    const state = answer.State ?? 'UNKNOWN';
    if (!REPLAY_DONE_STATES.has(state)) continue;
    const result: ArchiveReplayResult = {
      name: options.name,
      arn,
      state,
      ...(answer.StateReason ? { reason: answer.StateReason } : {}),
      ...(answer.EventLastReplayedTime
        ? { lastReplayedTime: answer.EventLastReplayedTime.toISOString() }
        : {}),
    };
    if (state !== 'COMPLETED') {
      throw new OperationError(
        `replay ${options.name} ended ${state}${answer.StateReason ? `: ${answer.StateReason}` : ''}`,
      );
    }
    return result;
  }
};

/** One line of the local events file, as the local bus appends it. */
export interface LocalEventLine {
  readonly time: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: unknown;
  readonly 'replay-name'?: string;
}

/**
 * The events of the local events file within [from, to), in file order. Events that were
 * themselves replayed are left out, as an archive does not archive replayed events.
 */
export const localEventsInRange = (text: string, from: Date, to: Date): LocalEventLine[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LocalEventLine];
      } catch {
        return [];
      }
    })
    .filter((event) => {
      const time = Date.parse(event.time);
      return event['replay-name'] === undefined && time >= from.getTime() && time < to.getTime();
    });

/** Posts events to the running local bridge's replay route, 100 at a time. */
export const replayLocally = async (options: {
  readonly replayUrl: string;
  readonly controlToken: string;
  readonly name: string;
  readonly events: readonly LocalEventLine[];
  readonly onProgress?: (done: number) => void;
}): Promise<number> => {
  let done = 0;
  for (let start = 0; start < options.events.length; start += 100) {
    const chunk = options.events.slice(start, start + 100);
    let response: Response;
    try {
      response = await fetch(options.replayUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${options.controlToken}`,
        },
        body: JSON.stringify({ replayName: options.name, events: chunk }),
      });
    } catch (error) {
      throw new OperationError(
        `the local bridge did not answer at ${options.replayUrl} (${(error as Error).message}); is \`npm start\` still running?`,
      );
    }
    if (!response.ok) {
      throw new OperationError(
        `the local bridge refused the replay: HTTP ${response.status} ${await response.text()}`,
      );
    }
    done += chunk.length;
    options.onProgress?.(done);
  }
  return done;
};
