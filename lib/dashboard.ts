import { Duration } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  type IWidget,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RATE_LIMIT_METRICS } from '../functions/sending/rate-limit-metric-names.ts';
import { EventPublisher } from './event-publisher.ts';
import { InboundAttachments } from './inbound-attachments.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { integerProblem, throwIfInvalid } from './props-validation.ts';
import type { ReportCheckQueue } from './report-check-queue.ts';
import { ScheduledJobs } from './scheduled-jobs.ts';
import { SendPipeline } from './send-pipeline.ts';
import { WebhookApi } from './webhook-api.ts';

export interface MsgbridgeDashboardProps {
  readonly webhookApi: WebhookApi;
  readonly eventPublisher: EventPublisher;
  /** The events the bus could not encrypt or decrypt, graphed with the on-failure queues. */
  readonly eventBusDeadLetterQueue: IQueue;
  readonly sendPipeline: SendPipeline;
  /** The report checks waiting for reconcile-status. */
  readonly reportChecks: ReportCheckQueue;
  readonly scheduledJobs: ScheduledJobs;
  readonly inboundAttachments: InboundAttachments;
  /** The alarms the status widget lists: every alarm of the stack. */
  readonly alarms: readonly IAlarm[];
  /** The gateway's TPS quota (`gateway.tpsQuota`, recipients per second): the quota-use line. */
  readonly tpsQuota: number;
  /**
   * CloudWatch namespace of the functions' metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
}

/**
 * One CloudWatch dashboard showing the flow through msgbridge, a row each: webhooks in, events
 * out, sends, the rate limit and quota use, tokens and scheduled jobs; then the state of every
 * alarm of the stack.
 */
export class MsgbridgeDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MsgbridgeDashboardProps) {
    super(scope, id);
    throwIfInvalid('MsgbridgeDashboard', [
      ...integerProblem('tpsQuota', props.tpsQuota, { min: 1, max: 100_000 }),
    ]);
    const namespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const period = Duration.minutes(5);
    const metric = (metricName: string, service: string, statistic: string = Stats.SUM) =>
      new Metric({
        namespace,
        metricName,
        dimensionsMap: { service },
        statistic,
        period,
        label: `${metricName} (${service})`,
      });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 6, height: 6 });
    /** Options of a resource metric graphed at its maximum over `period`. */
    const maximum = (label: string) => ({ period, statistic: Stats.MAXIMUM, label });
    /** The messages a queue holds, at their maximum over `period`. */
    const visible = (queue: IQueue, label: string) =>
      queue.metricApproximateNumberOfMessagesVisible(maximum(label));
    const heading = (markdown: string) => new TextWidget({ markdown, width: 24, height: 1 });

    const [receiveReports, receiveInbound] = WebhookApi.RECEIVER_SERVICES;
    const jobs = ScheduledJobs.SERVICES;
    const polling = props.scheduledJobs.pollReports !== undefined;
    const fromPoller = (metricName: string) =>
      polling ? [metric(metricName, jobs.pollReports)] : [];
    const stage = props.webhookApi.requestMetrics;
    const send = SendPipeline.SERVICE;
    const publisher = EventPublisher.SERVICE;
    const { fetch } = InboundAttachments.SERVICES;

    const waitMs = RATE_LIMIT_METRICS.waitMilliseconds;
    // Quota use from counts, not from a percentage each sender computes: every per-second window
    // is shared by all containers and each knows only its own reservations, while Sums add up
    // exactly across them. Sum / PERIOD is the recipients counted per second (the abandoned ones
    // too: they fill a window like the others); over the quota × period it is the share used.
    // PERIOD() rather than a fixed 60 keeps both right when CloudWatch widens the period for a
    // long time range. One-minute periods keep bursts visible; single full seconds average out.
    const reserved = new Metric({
      namespace,
      metricName: RATE_LIMIT_METRICS.quotaRecipientsReserved,
      dimensionsMap: { service: send },
      statistic: Stats.SUM,
      period: Duration.minutes(1),
    });
    const reservedPerSecond = new MathExpression({
      expression: 'FILL(reserved, 0) / PERIOD(reserved)',
      usingMetrics: { reserved },
      period: Duration.minutes(1),
      label: 'recipients reserved per second (send-messages)',
    });
    const quotaUsePercent = new MathExpression({
      expression: `100 * FILL(reserved, 0) / (${props.tpsQuota} * PERIOD(reserved))`,
      usingMetrics: { reserved },
      period: Duration.minutes(1),
      label: 'share of the TPS quota used (%)',
    });

    const rows: IWidget[][] = [
      [heading('## Webhooks in')],
      [
        graph('Stored', [
          metric('ReportsStored', receiveReports),
          ...fromPoller('ReportsStored'),
          metric('InboundMessagesStored', receiveInbound),
          ...fromPoller('InboundMessagesStored'),
        ]),
        graph('Duplicates and quarantine', [
          metric('ReportsDuplicate', receiveReports),
          ...fromPoller('ReportsDuplicate'),
          metric('ItemsQuarantined', receiveReports),
          metric('ItemsQuarantined', receiveInbound),
          ...fromPoller('ItemsQuarantined'),
        ]),
        graph(
          'Webhook requests and errors',
          [stage.metricCount({ period, label: 'Requests' })],
          [
            stage.metricClientError({ period, statistic: Stats.SUM, label: '4XX' }),
            stage.metricServerError({ period, statistic: Stats.SUM, label: '5XX' }),
          ],
        ),
        graph('Webhook latency (ms)', [
          stage.metricLatency({ period, statistic: Stats.percentile(50), label: 'p50' }),
          stage.metricLatency({ period, statistic: Stats.percentile(99), label: 'p99' }),
        ]),
      ],
      [heading('## Events out')],
      [
        graph('Published', [metric('EventsPublished', publisher)]),
        graph('Publish failures and poison records', [
          metric('PublishFailures', publisher),
          metric('PoisonRecords', publisher),
        ]),
        graph('Stream iterator age (ms)', [
          props.eventPublisher.publishEvents.metric(
            'IteratorAge',
            maximum('IteratorAge (publish-events)'),
          ),
        ]),
        graph('On-failure queues and the event bus DLQ', [
          visible(props.eventPublisher.onFailureQueue, 'publisher on-failure queue'),
          visible(props.inboundAttachments.onFailureQueue, 'attachments on-failure queue'),
          visible(props.eventBusDeadLetterQueue, 'event bus DLQ'),
        ]),
      ],
      [heading('## Sends')],
      [
        graph('Recipients', [
          metric('RecipientsAccepted', send),
          metric('RecipientsRejected', send),
          metric('RecipientsScheduled', send),
        ]),
        graph('Invalid sends and retries', [
          metric('SendsRejectedInvalid', send),
          metric('SendRetries', send),
        ]),
        graph(
          'Send queue',
          [visible(props.sendPipeline.queue, 'messages visible')],
          [
            props.sendPipeline.queue.metricApproximateAgeOfOldestMessage(
              maximum('age of oldest message (s)'),
            ),
          ],
        ),
        graph('Send DLQ', [visible(props.sendPipeline.deadLetterQueue, 'messages in the DLQ')]),
        graph('Report checks (reconcile-status)', [
          visible(props.reportChecks.queue, 'checks waiting'),
          props.reportChecks.queue.metricApproximateNumberOfMessagesNotVisible(
            maximum('checks held back or in a run'),
          ),
          visible(props.reportChecks.deadLetterQueue, 'checks in the DLQ'),
        ]),
      ],
      [heading('## Rate limit and quota')],
      [
        graph('Rate-limit wait per send request (ms)', [
          metric(waitMs, send, Stats.percentile(50)).with({ label: 'p50' }),
          metric(waitMs, send, Stats.percentile(99)).with({ label: 'p99' }),
          metric(waitMs, send, Stats.MAXIMUM).with({ label: 'maximum' }),
        ]),
        graph('Send requests held back by the quota', [
          metric(RATE_LIMIT_METRICS.waits, send),
          metric(RATE_LIMIT_METRICS.waitsExceeded, send),
        ]),
        new GraphWidget({
          title: 'Quota use (recipients/s, 1-minute average)',
          left: [reservedPerSecond],
          leftAnnotations: [{ value: props.tpsQuota, label: `TPS quota (${props.tpsQuota}/s)` }],
          leftYAxis: { min: 0 },
          width: 6,
          height: 6,
        }),
        new GraphWidget({
          title: 'Quota use (% of gateway.tpsQuota)',
          left: [quotaUsePercent],
          leftAnnotations: [{ value: 100, label: 'quota' }],
          leftYAxis: { min: 0 },
          width: 6,
          height: 6,
        }),
      ],
      [heading('## Tokens and jobs')],
      [
        graph(
          'Gateway token',
          [metric('TokenMinutesLeft', jobs.refreshToken, Stats.MINIMUM)],
          [metric('TokenRefreshFailures', jobs.refreshToken)],
        ),
        graph(
          'Report polling lag (s)',
          [metric('PollLagSeconds', jobs.pollReports, Stats.MAXIMUM)],
          [metric('RateLimitedPolls', jobs.pollReports)],
        ),
        graph('Reconciled reports', [metric('ReportsReconciled', jobs.reconcileStatus)]),
        graph('Attachments', [
          metric('AttachmentsStored', fetch),
          metric('AttachmentsLost', fetch),
        ]),
      ],
      [heading('## Alarms')],
      [
        new AlarmStatusWidget({
          title: 'Every alarm of the stack',
          alarms: [...props.alarms],
          width: 24,
          height: Math.max(3, 1 + Math.ceil(props.alarms.length / 4) * 2),
        }),
      ],
    ];

    this.dashboard = new Dashboard(this, 'dashboard', {
      defaultInterval: Duration.hours(6),
      widgets: rows,
    });
  }
}
