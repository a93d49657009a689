import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { DynamoDbPublishLedger } from '../functions/publishing/adapters/dynamodb-publish-ledger.ts';
import { EventBridgeBus } from '../functions/publishing/adapters/eventbridge-bus.ts';
import { storedMessageStatus } from '../functions/publishing/adapters/stored-message-status.ts';
import { OperationError } from './errors.ts';
import { type RedriveResult, redriveDlq } from './redrive.ts';
import { localEventsInRange, replayArchive, replayLocally } from './replay.ts';
import type { RepublishPorts } from './republish.ts';
import { queuePublishFailures, tableItems } from './republish-sources.ts';
import type { Target } from './target.ts';

/*
 * The operator's actions on a target, as one function each: the `msgbridge` commands and the
 * operator console (console/) both call these, so an action does the same thing from either.
 */

/** A queue's approximate depth (`ApproximateNumberOfMessages`); undefined when SQS gives none. */
export const queueDepth = async (target: Target, queueUrl: string): Promise<number | undefined> => {
  const attributes = await target.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  const depth = Number(attributes.Attributes?.ApproximateNumberOfMessages ?? Number.NaN);
  return Number.isFinite(depth) ? depth : undefined;
};

/** Moves up to `max` messages of the target's send DLQ back to its send queue. */
export const redriveSendDlq = (
  target: Target,
  max: number,
  onProgress: (moved: number) => void,
): Promise<RedriveResult> =>
  redriveDlq({
    sqs: target.sqs,
    dlqUrl: target.queues.dlq,
    queueUrl: target.queues.send,
    max,
    onProgress,
  });

export interface ReplayWindowOptions {
  readonly name: string;
  readonly from: Date;
  readonly to: Date;
  /** On a stack: poll until the replay ends. @default true */
  readonly wait?: boolean;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Reads the local events file. */
  readonly readFile: (path: string) => Promise<string>;
  /** Told the total once it is known (events locally, 100 percent on a stack). */
  readonly onTotal?: (total: number) => void;
  /** Events replayed so far (locally) or percent of the range (on a stack). */
  readonly onProgress?: (done: number) => void;
}

export interface ReplayWindowResult {
  readonly name: string;
  readonly state: string;
  /** Locally: events put on the bus again. */
  readonly replayed?: number;
  readonly arn?: string | undefined;
  readonly reason?: string;
  readonly lastReplayedTime?: string;
}

/**
 * Replays the events published in [from, to): from the archive into the bus on a stack, from the
 * events file into the running bridge's bus locally (`msgbridge events replay`).
 */
export const replayWindow = async (
  target: Target,
  options: ReplayWindowOptions,
): Promise<ReplayWindowResult> => {
  const events = target.events;
  if (events.kind === 'stack') {
    options.onTotal?.(100);
    return replayArchive({
      client: events.client,
      name: options.name,
      archiveArn: events.archiveArn,
      busArn: events.busArn,
      from: options.from,
      to: options.to,
      wait: options.wait ?? true,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }
  let text: string;
  try {
    text = await options.readFile(events.file);
  } catch (error) {
    throw new OperationError(
      `cannot read the local events file ${events.file}: ${(error as Error).message}`,
    );
  }
  const selected = localEventsInRange(text, options.from, options.to);
  options.onTotal?.(selected.length);
  const replayed = await replayLocally({
    replayUrl: events.replayUrl,
    controlToken: events.controlToken,
    name: options.name,
    events: selected,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  return { name: options.name, state: 'COMPLETED', replayed };
};

/** The ports of `events republish` for the target; `release` hands back unsettled failures. */
export const republishPorts = (target: Target): RepublishPorts & { release(): Promise<void> } => {
  const markers = new DynamoDbPublishLedger(target.tables.state, target.documents);
  const items = tableItems(target.documents, target.tables.events);
  const events = target.events;
  if (
    events.kind === 'stack' &&
    (events.onFailureQueueUrl === undefined || events.eventSource === undefined)
  ) {
    throw new OperationError(
      `the ${target.describe()} lacks the outputs PublisherOnFailureQueueUrl and EventSource; deploy a msgbridge version that has them`,
    );
  }
  const failures = queuePublishFailures({
    sqs: target.sqs,
    queueUrl: events.onFailureQueueUrl ?? '',
    streams: events.streams,
  });
  return {
    failures,
    markers,
    items,
    bus: new EventBridgeBus(events.busName, events.client),
    // The local run's stack publishes with the default source.
    source: events.kind === 'stack' ? (events.eventSource ?? 'msgbridge') : 'msgbridge',
    messageStatus: storedMessageStatus(target.tables.events, target.documents),
    release: () => failures.release(),
  };
};
