import { join } from 'node:path';
import { Duration, Token } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Archive, type IEventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PUBLISHABLE_RECORD_PATTERN } from '../functions/events/stream-filter.ts';
import { MsgbridgeFunction } from './msgbridge-function.ts';
import { createOnFailureQueue } from './on-failure-queue.ts';
import { integerProblem, throwIfInvalid } from './props-validation.ts';

/** The settings of the stream → EventBridge path that a deployment may choose. */
export interface EventPublisherOptions {
  /**
   * Stream records per invocation; `publish-events` sends them in `PutEvents` calls of at most 10.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Times Lambda retries a failing batch (bisecting it each time) before the failing records go
   * to the on-failure queue.
   * @default 5
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this go to the on-failure queue unprocessed. DynamoDB keeps stream records
   * for 24 hours, so one day means "while they exist".
   * @default Duration.days(1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Attempts `publish-events` makes for a failing `PutEvents` entry within one invocation.
   * @default 4
   */
  readonly publishMaxAttempts?: number;
  /**
   * Days the bus archive keeps published events for replay.
   * @default 30
   */
  readonly archiveRetentionDays?: number;
}

export interface EventPublisherProps extends EventPublisherOptions {
  /** The event table; its stream (new images) is the outbox. */
  readonly eventTable: ITableV2;
  /** The bus the events are put on. */
  readonly eventBus: IEventBus;
  /** `source` of every event put on the bus, and of the archive's event pattern. */
  readonly eventSource: string;
  /**
   * CloudWatch namespace of the publisher's metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
}

/** The problems with `EventPublisherOptions`, for a caller that reports every problem at once. */
export const eventPublisherProblems = (options: EventPublisherOptions): string[] => {
  const problems = [
    // Lambda's limit for DynamoDB streams.
    ...integerProblem('batchSize', options.batchSize, { min: 1, max: 10_000 }),
    ...integerProblem('retryAttempts', options.retryAttempts, { min: 0, max: 10_000 }),
    ...integerProblem('publishMaxAttempts', options.publishMaxAttempts, { min: 1, max: 10 }),
    ...integerProblem('archiveRetentionDays', options.archiveRetentionDays, {
      min: 1,
      max: 3_650,
    }),
  ];
  const age = options.maxRecordAge;
  if (age !== undefined && !Token.isUnresolved(age.toSeconds())) {
    const seconds = age.toSeconds();
    if (seconds < 60 || seconds > 604_800)
      problems.push(`maxRecordAge must be from 60 seconds to 7 days, got ${age.toHumanString()}`);
  }
  return problems;
};

/** The problem with an event source, if any: EventBridge refuses `aws.` sources from PutEvents. */
export const eventSourceProblems = (eventSource: string): string[] =>
  Token.isUnresolved(eventSource) ||
  (/^[A-Za-z0-9._/-]{1,256}$/.test(eventSource) && !eventSource.startsWith('aws.'))
    ? []
    : [
        `eventSource must be 1-256 letters, digits, ".", "_", "-" or "/" and must not start with "aws.", got "${eventSource}"`,
      ];

/**
 * The transactional outbox's second half: `publish-events` reads the INSERTs of event items from
 * the event table's stream and puts them on the bus. Failed records are retried with bisecting
 * and then land, as stream pointers, in an on-failure queue; nothing is dropped silently. The
 * bus archive keeps every event of `eventSource` for replay.
 */
export class EventPublisher extends Construct {
  /** Powertools service name of the publisher: the `service` dimension of its metrics. */
  static readonly SERVICE = 'publish-events';

  public readonly publishEvents: MsgbridgeFunction;
  /** Receives a pointer (shard, sequence numbers) to every stream batch that could not be published. */
  public readonly onFailureQueue: Queue;
  public readonly archive: Archive;

  constructor(scope: Construct, id: string, props: EventPublisherProps) {
    super(scope, id);
    throwIfInvalid('EventPublisher', [
      ...eventSourceProblems(props.eventSource),
      ...eventPublisherProblems(props),
    ]);

    this.publishEvents = new MsgbridgeFunction(this, EventPublisher.SERVICE, {
      entry: join(import.meta.dirname, '../functions/publish-events.ts'),
      description: 'msgbridge: event table stream (INSERTs of events) → EventBridge',
      // Up to 10 PutEvents calls per batch, each retried with backoff of up to 2 s.
      timeout: Duration.seconds(60),
      environment: {
        EVENT_BUS_NAME: props.eventBus.eventBusName,
        EVENT_SOURCE: props.eventSource,
        PUBLISH_MAX_ATTEMPTS: String(props.publishMaxAttempts ?? 4),
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? 'msgbridge',
      },
    });
    props.eventBus.grantPutEventsTo(this.publishEvents);

    this.onFailureQueue = createOnFailureQueue(this, 'the stream event source');

    // The event source grants the stream read permissions and sqs:SendMessage on the queue.
    this.publishEvents.addEventSource(
      new DynamoEventSource(props.eventTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: props.batchSize ?? 100,
        bisectBatchOnError: true,
        retryAttempts: props.retryAttempts ?? 5,
        reportBatchItemFailures: true,
        maxRecordAge: props.maxRecordAge ?? Duration.days(1),
        // Only new items that carry an event (`eventName` INSERT, `detailType` in the new image):
        // send records, leases and later updates of an item are not events, and filtering here
        // costs no invocation. The local stream poller applies the same shared pattern.
        filters: [FilterCriteria.filter(PUBLISHABLE_RECORD_PATTERN)],
        onFailure: new SqsDlq(this.onFailureQueue),
      }),
    );

    this.archive = new Archive(this, 'archive', {
      sourceEventBus: props.eventBus,
      description: `msgbridge: every event of source ${props.eventSource}, for replay`,
      eventPattern: { source: [props.eventSource] },
      retention: Duration.days(props.archiveRetentionDays ?? 30),
    });
  }
}
