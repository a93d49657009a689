import { Duration, Token } from 'aws-cdk-lib';
import { type Alarm, MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import { inboundAlarmsProblems, metricsNamespaceProblems } from './inbound-alarms.ts';
import { MonitoredConstruct } from './monitored-construct.ts';
import type { WebhookRequestMetrics } from './webhook-function-urls.ts';

/** The thresholds of the rate alarms that a deployment may choose (each a fraction, 0 to 1). */
export interface RateAlarmsOptions {
  /**
   * Share of webhook requests answered 5XX in a five-minute period that fires `webhook-5xx-rate`.
   * A 5XX is never a legitimate answer: it means a receiver crashed, timed out or was throttled
   * by Lambda, and the gateway has to redeliver.
   * @default 0.05
   */
  readonly webhook5xxRateThreshold?: number;
  /**
   * Share of webhook requests answered 4XX that fires `webhook-4xx-rate` when it holds for three
   * fifteen-minute periods in a row. Some 4XX are expected: 404 for a wrong or retired path secret
   * (scanners, a rotation the gateway console has not caught up with), 400 when a store failed and
   * the gateway should redeliver, 429 from stage throttling. Only a sustained high share means the
   * gateway itself is being turned away.
   * @default 0.25
   */
  readonly webhook4xxRateThreshold?: number;
  /**
   * Share of recipients the gateway rejected, `RecipientsRejected / (RecipientsAccepted +
   * RecipientsRejected)` of `send-messages` over fifteen minutes, that fires `send-rejection-rate`.
   * @default 0.2
   */
  readonly sendRejectionRateThreshold?: number;
}

export interface RateAlarmsProps extends RateAlarmsOptions {
  /** The webhook front door's request metrics: the REST stage's, or the function URLs' summed. */
  readonly webhookStage: WebhookRequestMetrics;
  /** Powertools service name of the sender (`SendPipeline.SERVICE`). */
  readonly sendService: string;
  /**
   * CloudWatch namespace of the functions' metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
  /**
   * SNS topic that receives every alarm and its return to OK.
   * @default - alarms without actions
   */
  readonly alarmTopicArn?: string;
}

const DEFAULTS = {
  webhook5xxRateThreshold: 0.05,
  webhook4xxRateThreshold: 0.25,
  sendRejectionRateThreshold: 0.2,
} as const;

/** The problems with `RateAlarmsOptions`, for a caller that reports every problem at once. */
export const rateAlarmsProblems = (options: RateAlarmsOptions): string[] =>
  (Object.keys(DEFAULTS) as (keyof RateAlarmsOptions)[]).flatMap((name) => {
    const value = options[name];
    if (value === undefined || Token.isUnresolved(value)) return [];
    return Number.isFinite(value) && value > 0 && value < 1
      ? []
      : [`${name} must be a fraction above 0 and below 1, got ${value}`];
  });

/** Every problem the constructor reports at once. */
const constructorProblems = (props: RateAlarmsProps): string[] => [
  ...rateAlarmsProblems(props),
  ...metricsNamespaceProblems(props.metricsNamespace),
  ...inboundAlarmsProblems(props),
];

/**
 * Alarms on rates rather than counts: the webhook stage's 5XX and 4XX shares, and the share of
 * recipients the gateway rejects. Missing data is never breaching: no traffic is healthy.
 */
export class RateAlarms extends MonitoredConstruct {
  /** The webhook stage answered a share of requests with 5XX. */
  public readonly webhook5xxRate: Alarm;
  /** The webhook stage answered a high share of requests with 4XX for 45 minutes. */
  public readonly webhook4xxRate: Alarm;
  /** The gateway rejected a high share of the recipients sent to it. */
  public readonly sendRejectionRate: Alarm;

  constructor(scope: Construct, id: string, props: RateAlarmsProps) {
    super(scope, id, 'RateAlarms', props, constructorProblems(props));
    const fiveMinutes = Duration.minutes(5);
    const fifteenMinutes = Duration.minutes(15);

    // API Gateway reports 4XXError and 5XXError as 1 or 0 per request, so their average is the
    // share of requests with that answer.
    const average = (period: Duration) => ({ statistic: Stats.AVERAGE, period });
    this.webhook5xxRate = alarmAbove(this, 'webhook-5xx-rate', {
      description:
        'msgbridge: the webhook API answered 5XX to a share of requests: a receiver crashed, timed out or was throttled by Lambda. The gateway redelivers, so nothing is lost yet; read the receive-reports and receive-inbound logs.',
      metric: props.webhookStage.metricServerError(average(fiveMinutes)),
      threshold: props.webhook5xxRateThreshold ?? DEFAULTS.webhook5xxRateThreshold,
    });
    this.webhook4xxRate = alarmAbove(this, 'webhook-4xx-rate', {
      description:
        'msgbridge: the webhook API answered 4XX to a high share of requests for 45 minutes. Some 404 (wrong secret) and 400 (store failed, gateway redelivers) are normal; a sustained share means the gateway uses a stale secret or URL, is throttled (429), or stores keep failing.',
      metric: props.webhookStage.metricClientError(average(fifteenMinutes)),
      threshold: props.webhook4xxRateThreshold ?? DEFAULTS.webhook4xxRateThreshold,
      evaluation: 3,
    });

    const sendMetric = (metricName: string) =>
      new Metric({
        namespace: this.metricsNamespace,
        metricName,
        dimensionsMap: { service: props.sendService },
        statistic: Stats.SUM,
        period: fifteenMinutes,
      });
    // send-messages emits both counts for every processed message, so a period without sends has
    // no data points at all (missing, not breaching) rather than a division by zero.
    this.sendRejectionRate = alarmAbove(this, 'send-rejection-rate', {
      description:
        'msgbridge: the gateway rejected a high share of recipients over 15 minutes (RecipientsRejected / (RecipientsAccepted + RecipientsRejected)). Each is a "Message Rejected" event with the gateway code: check numbers, sender IDs and the account state in the gateway console.',
      metric: new MathExpression({
        expression: 'rejected / (accepted + rejected)',
        usingMetrics: {
          accepted: sendMetric('RecipientsAccepted'),
          rejected: sendMetric('RecipientsRejected'),
        },
        period: fifteenMinutes,
        label: 'Send rejection rate',
      }),
      threshold: props.sendRejectionRateThreshold ?? DEFAULTS.sendRejectionRateThreshold,
    });

    notifyAlarmTopic(this, props.alarmTopicArn, this.alarms);
  }

  /** Every rate alarm. */
  public get alarms(): Alarm[] {
    return [this.webhook5xxRate, this.webhook4xxRate, this.sendRejectionRate];
  }
}
