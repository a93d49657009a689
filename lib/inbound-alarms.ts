import { Duration, Token } from 'aws-cdk-lib';
import {
  type Alarm,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { alarmAbove } from './alarm-actions.ts';
import { MonitoredConstruct } from './monitored-construct.ts';

export interface InboundAlarmsOptions {
  /**
   * SNS topic that receives every alarm and its return to OK.
   * @default - alarms without actions (visible in the CloudWatch console only)
   */
  readonly alarmTopicArn?: string;
}

export interface InboundAlarmsProps extends InboundAlarmsOptions {
  /** The publisher's on-failure queue. */
  readonly onFailureQueue: IQueue;
  /** Powertools service names of the webhook receivers (the `service` metric dimension). */
  readonly receiverServices: readonly string[];
  /** Powertools service name of the publisher. */
  readonly publisherService: string;
  /**
   * CloudWatch namespace of the functions' metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
}

/** The problems with `InboundAlarmsOptions`, for a caller that reports every problem at once. */
export const inboundAlarmsProblems = (options: InboundAlarmsOptions): string[] => {
  const arn = options.alarmTopicArn;
  if (arn === undefined || Token.isUnresolved(arn)) return [];
  return /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(arn)
    ? []
    : [`alarmTopicArn must be the ARN of a standard SNS topic, got "${arn}"`];
};

/** The problem with a metrics namespace, if any (CloudWatch reserves `AWS/`). */
export const metricsNamespaceProblems = (namespace: string | undefined): string[] =>
  namespace === undefined ||
  Token.isUnresolved(namespace) ||
  (/^[A-Za-z0-9.\-_/#:]{1,255}$/.test(namespace) && !namespace.startsWith('AWS/'))
    ? []
    : [
        `metricsNamespace must be a CloudWatch namespace not starting with "AWS/", got "${namespace}"`,
      ];

/** Every problem the constructor reports at once. */
const constructorProblems = (props: InboundAlarmsProps): string[] => [
  ...inboundAlarmsProblems(props),
  ...metricsNamespaceProblems(props.metricsNamespace),
];

/**
 * The alarms of the inbound path: anything that means an event may be missing or late, and any
 * body the receivers had to quarantine. Missing data is never breaching: no traffic is healthy.
 * Each alarm's description says what to do; docs/operations.md has the details.
 */
export class InboundAlarms extends MonitoredConstruct {
  /** A stream batch could not be published and its pointer is in the on-failure queue. */
  public readonly onFailureQueueNotEmpty: Alarm;
  /** `PutEvents` entries still failed after the publisher's retries. */
  public readonly publishFailures: Alarm;
  /** A stream record could not become an event at all. */
  public readonly poisonRecords: Alarm;
  /** A receiver stored an item or a whole body in quarantine. */
  public readonly quarantineGrowth: Alarm;
  /** Receivers keep failing to store what the gateway sends (it keeps redelivering). */
  public readonly storeFailures: Alarm;

  constructor(scope: Construct, id: string, props: InboundAlarmsProps) {
    super(scope, id, 'InboundAlarms', props, constructorProblems(props));
    const metric = (metricName: string, service: string, period: Duration) =>
      new Metric({
        namespace: this.metricsNamespace,
        metricName,
        dimensionsMap: { service },
        statistic: Stats.SUM,
        period,
      });
    /** One time series: the sum of a metric over several services, a missing point counted as 0. */
    const sumOver = (metricNames: readonly string[], period: Duration, label: string): IMetric => {
      const usingMetrics: Record<string, IMetric> = {};
      for (const [m, metricName] of metricNames.entries())
        for (const [s, service] of props.receiverServices.entries())
          usingMetrics[`m${m}s${s}`] = metric(metricName, service, period);
      return new MathExpression({
        expression: Object.keys(usingMetrics)
          .map((key) => `FILL(${key}, 0)`)
          .join(' + '),
        usingMetrics,
        period,
        label,
      });
    };
    const alarm = (alarmId: string, description: string, metric: IMetric, evaluation = 1) =>
      alarmAbove(this, alarmId, { description, anchor: 'alarms', metric, evaluation });
    const fiveMinutes = Duration.minutes(5);

    this.onFailureQueueNotEmpty = alarm(
      'on-failure-queue-not-empty',
      'msgbridge: stream records could not be published and were sent to the on-failure queue. Each message names a shard and sequence range; the items are still in the event table until their TTL.',
      props.onFailureQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      }),
    );
    this.publishFailures = alarm(
      'publish-failures',
      'msgbridge: PutEvents entries still failed after retries; the batch is retried and may end in the on-failure queue.',
      metric('PublishFailures', props.publisherService, fiveMinutes),
    );
    this.poisonRecords = alarm(
      'poison-records',
      'msgbridge: a stream record could not become an event (malformed item); it goes to the on-failure queue.',
      metric('PoisonRecords', props.publisherService, fiveMinutes),
    );
    this.quarantineGrowth = alarm(
      'quarantine-growth',
      'msgbridge: the receivers stored items or whole bodies in quarantine (ItemsQuarantined + UnrecognisedBodies); an "Item Quarantined" or "Unrecognised Inbound Body Received" event carries each one.',
      sumOver(
        ['ItemsQuarantined', 'UnrecognisedBodies'],
        fiveMinutes,
        'Items and bodies quarantined',
      ),
    );
    this.storeFailures = alarm(
      'store-failures',
      'msgbridge: the receivers failed to store webhook items for 3 minutes in a row; the gateway is redelivering and nothing is lost yet, but DynamoDB writes are failing.',
      sumOver(['StoreFailures'], Duration.minutes(1), 'Store failures'),
      3,
    );

    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, 'alarm-topic', props.alarmTopicArn));
      for (const each of [
        this.onFailureQueueNotEmpty,
        this.publishFailures,
        this.poisonRecords,
        this.quarantineGrowth,
        this.storeFailures,
      ]) {
        each.addAlarmAction(action);
        each.addOkAction(action);
      }
    }
  }
}
