import { join } from 'node:path';
import { CfnElement, Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  STATISTICS_DEFAULTS,
  type StatisticsSettings,
  StatisticsSettingsSchema,
} from '../functions/statistics/export-use-case.ts';
import type { MessengerStatsName } from '../gateway/schemas/index.ts';
import { notifyAlarmTopic } from './alarm-actions.ts';
import { FunctionSchedule } from './function-schedule.ts';
import { type GatewayCallersProps, gatewayCallersProblems } from './gateway-callers.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from './gateway-function.ts';
import { grantTableItemActions } from './grants.ts';
import { environmentShareProblems } from './lambda-environment.ts';
import { MonitoredConstruct } from './monitored-construct.ts';
import { createOnFailureQueue, grantQueueKeyForSend } from './on-failure-queue.ts';
import { integerProblem } from './props-validation.ts';

/** What a deployment chooses about the daily statistics export. */
export interface StatisticsExportOptions {
  /**
   * When the export runs: an EventBridge Scheduler `cron(...)` expression in `timeZone`. It
   * always exports the KST day before the run, so run it after midnight KST.
   * @default 'cron(30 1 * * ? *)' (01:30 every day)
   */
  readonly schedule?: string;
  /**
   * Time zone of `schedule` (IANA name).
   * @default 'Asia/Seoul'
   */
  readonly timeZone?: string;
  /**
   * Collect the statistics of the account's tracking URLs (spec 01 §4.16).
   * @default true
   */
  readonly trackingUrls?: boolean;
  /**
   * Messenger channels (`msgrChId`) whose read/click statistics are collected (spec 02 §4.5).
   * @default - none: no messenger statistics
   */
  readonly messengerChannels?: readonly string[];
  /**
   * Which of the seven messenger statistics, by name (`channelNoticeRead`, `channelBrandRead`,
   * `channelBrandClick`, `templateNoticeRead`, `templateBrandRead`, `templateNoticeClick`,
   * `templateBrandClick`).
   * @default - all seven
   */
  readonly messengerStatistics?: readonly MessengerStatsName[];
  /**
   * Elapsed days asked for (0 to 2): for the day D, send date D − e with `elapsedDay` e.
   * @default [0, 1, 2]
   */
  readonly elapsedDays?: readonly number[];
  /**
   * Pages of the tracking-URL list read at most per run (100 URLs a page).
   * @default 100
   */
  readonly maxUrlPages?: number;
  /**
   * Also write one JSON-lines object per kind and day to S3
   * (`statistics/<kind>/dt=YYYY-MM-DD/part.jsonl`).
   * @default false
   */
  readonly s3Export?: boolean;
}

export interface StatisticsExportProps extends StatisticsExportOptions, GatewayCallersProps {
  /**
   * The bucket of the JSON-lines export; required when `s3Export` is on. The function may put
   * objects below `statistics/` only.
   * @default - no bucket
   */
  readonly bucket?: IBucket;
  /**
   * Customer managed key of the dead-letter queue and the function's log group.
   * @default - SQS-managed encryption, log group with CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: IKey;
}

export const STATISTICS_EXPORT_DEFAULTS = {
  schedule: 'cron(30 1 * * ? *)',
  timeZone: 'Asia/Seoul',
} as const;

/** Key prefix of the JSON-lines objects; the function may write below it only. */
const KEY_PREFIX = STATISTICS_DEFAULTS.keyPrefix;

const CRON = /^cron\((\S+\s+){5}\S+\)$/;

/** The settings the function reads (`STATISTICS_SETTINGS`), from the options. */
const settingsInput = (options: StatisticsExportOptions) => ({
  trackingUrls: options.trackingUrls,
  messengerChannels: options.messengerChannels,
  messengerStatistics: options.messengerStatistics,
  elapsedDays: options.elapsedDays,
  maxUrlPages: options.maxUrlPages,
});

/** The problems with `StatisticsExportOptions`, for a caller that reports every problem at once. */
export const statisticsExportProblems = (options: StatisticsExportOptions): string[] => {
  const problems: string[] = [];
  const schedule: unknown = options.schedule;
  if (
    schedule !== undefined &&
    !(typeof schedule === 'string' && (Token.isUnresolved(schedule) || CRON.test(schedule)))
  )
    problems.push(
      `schedule must be an EventBridge Scheduler cron expression with six fields such as "cron(30 1 * * ? *)", got ${JSON.stringify(schedule)}`,
    );
  const timeZone: unknown = options.timeZone;
  if (timeZone !== undefined && !(typeof timeZone === 'string' && isTimeZone(timeZone)))
    problems.push(
      `timeZone must be an IANA time zone such as "Asia/Seoul", got ${JSON.stringify(timeZone)}`,
    );
  const s3Export: unknown = options.s3Export;
  if (s3Export !== undefined && typeof s3Export !== 'boolean')
    problems.push(`s3Export must be true or false, got ${JSON.stringify(s3Export)}`);
  problems.push(...integerProblem('maxUrlPages', options.maxUrlPages, { min: 1, max: 1_000 }));
  // The rest is checked by the schema the function itself parses its settings with.
  const parsed = StatisticsSettingsSchema.safeParse(settingsInput(options));
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      if (issue.path[0] === 'maxUrlPages') continue;
      problems.push(`${issue.path.join('.')}: ${issue.message}`);
    }
  const settings = parsed.success ? parsed.data : undefined;
  // The function reads its settings, channels and all, from its environment (STATISTICS_SETTINGS).
  if (settings)
    problems.push(
      ...environmentShareProblems(
        'messengerChannels',
        'STATISTICS_SETTINGS',
        JSON.stringify(settings),
        'export the other channels from a second stack or ask for them with `msgbridge stats`',
      ),
    );
  if (settings && !settings.trackingUrls && settings.messengerChannels.length === 0)
    problems.push(
      'trackingUrls is off and messengerChannels is empty: the export would collect nothing',
    );
  return problems;
};

const isTimeZone = (value: string): boolean => {
  if (Token.isUnresolved(value)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

/** Every problem the constructor reports at once. */
const constructorProblems = (props: StatisticsExportProps): string[] => [
  ...statisticsExportProblems(props),
  ...(props.s3Export === true && props.bucket === undefined ? ['s3Export needs a bucket'] : []),
  ...gatewayCallersProblems(props),
];

/**
 * The optional daily statistics export: `export-statistics`, on an EventBridge Scheduler cron
 * schedule (01:30 Asia/Seoul by default), collects the previous KST day's tracking-URL and
 * messenger read/click statistics and stores each as an event-table item, which the stream
 * publisher puts on the bus; with `s3Export`, it also writes JSON lines to `bucket`.
 *
 * The function may put items into the event table, use the shared token, read the credentials
 * and, with `s3Export`, put objects below `statistics/` of the bucket: nothing else. A run with a
 * failed subject fails after storing the rest; after two retries the invocation goes to the
 * dead-letter queue, and an alarm fires.
 */
export class StatisticsExport extends MonitoredConstruct {
  /** Powertools service name: the `service` dimension of the function's metrics. */
  static readonly SERVICE = 'export-statistics';
  /** Key prefix of the JSON-lines objects. */
  static readonly KEY_PREFIX = KEY_PREFIX;

  public readonly exportStatistics: GatewayFunction;
  public readonly schedule: FunctionSchedule;
  /** Invocations that failed after their retries. */
  public readonly deadLetterQueue: Queue;
  /** The dead-letter queue holds a failed run. */
  public readonly failedRuns: Alarm;
  /** The settings the function runs with. */
  public readonly settings: StatisticsSettings;

  constructor(scope: Construct, id: string, props: StatisticsExportProps) {
    super(scope, id, 'StatisticsExport', props, constructorProblems(props));
    this.settings = StatisticsSettingsSchema.parse(settingsInput(props));
    const bucket = props.s3Export === true ? props.bucket : undefined;

    this.deadLetterQueue = createOnFailureQueue(
      this,
      'export-statistics (its scheduled invocations that failed after their retries)',
      props.encryptionKey,
    );
    this.exportStatistics = new GatewayFunction(this, StatisticsExport.SERVICE, {
      gateway: props.gateway,
      egress: props.egress,
      credentials: props.credentials,
      stateTable: props.stateTable,
      metricsNamespace: this.metricsNamespace,
      entry: join(import.meta.dirname, '../functions/export-statistics.ts'),
      description:
        'msgbridge: daily export of tracking-URL and messenger read/click statistics as events',
      // A few calls per URL and channel, four at a time.
      timeout: Duration.minutes(10),
      deadLetterQueue: this.deadLetterQueue,
      logEncryptionKey: props.encryptionKey,
      environment: {
        EVENT_TABLE_NAME: props.eventTable.tableName,
        EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
        STATISTICS_SETTINGS: JSON.stringify(this.settings),
        ...(bucket ? { STATISTICS_BUCKET: bucket.bucketName } : {}),
      },
      // Token and its lease only.
      stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS],
    });
    // Lambda puts failed invocations on the dead-letter queue with the function's role: CDK grants
    // sqs:SendMessage, and under a customer managed key SQS needs a data key too.
    grantQueueKeyForSend(this.deadLetterQueue, this.exportStatistics);
    // Statistics events: conditional puts only.
    grantTableItemActions(props.eventTable, this.exportStatistics, 'dynamodb:PutItem');
    if (bucket) this.grantObjectPuts(bucket);

    this.schedule = new FunctionSchedule(this, `${StatisticsExport.SERVICE}-schedule`, {
      target: this.exportStatistics,
      // Replaced by the cron expression below; FunctionSchedule builds the role and retries.
      rate: Duration.days(1),
      // A rerun stores nothing twice, so retrying a run with failed subjects is safe.
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      description: `msgbridge export-statistics: ${props.schedule ?? STATISTICS_EXPORT_DEFAULTS.schedule} ${props.timeZone ?? STATISTICS_EXPORT_DEFAULTS.timeZone}, 2 retries`,
    });
    const cfnSchedule = this.schedule.schedule.node.defaultChild;
    if (!(cfnSchedule instanceof CfnSchedule)) throw new Error('the schedule has no CfnSchedule');
    cfnSchedule.scheduleExpression = props.schedule ?? STATISTICS_EXPORT_DEFAULTS.schedule;
    cfnSchedule.scheduleExpressionTimezone = props.timeZone ?? STATISTICS_EXPORT_DEFAULTS.timeZone;

    this.failedRuns = new Alarm(this, 'statistics-export-failed', {
      alarmDescription:
        'msgbridge: export-statistics failed after its retries (a gateway call or a write failed for some subjects; the others were stored). The message in the dead-letter queue is the failed invocation; the function log names each failed subject. See docs/operations.md#statistics-export.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: Stats.MAXIMUM,
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    notifyAlarmTopic(this, props.alarmTopicArn, this.alarms);
  }

  /** Every alarm of the export. */
  public get alarms(): Alarm[] {
    return [this.failedRuns];
  }

  /** `PutObject` below the statistics prefix of the bucket, and nothing else. */
  private grantObjectPuts(bucket: IBucket): void {
    this.exportStatistics.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`${KEY_PREFIX}*`)],
      }),
    );
    // A single PutObject under SSE-KMS needs only a data key (grantEncrypt would add the
    // wildcard kms:ReEncrypt* and kms:GenerateDataKey*).
    bucket.encryptionKey?.grant(this.exportStatistics, 'kms:GenerateDataKey');
    const cfnBucket = bucket.node.defaultChild;
    const role = this.exportStatistics.role;
    if (role && CfnElement.isCfnElement(cfnBucket)) {
      const bucketId = Stack.of(bucket).getLogicalId(cfnBucket);
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${KEY_PREFIX}*]`,
        reason: `The export writes one object per kind and day (${KEY_PREFIX}<kind>/dt=<date>/part.jsonl), whose key is only known at run time, so it may put any object below ${KEY_PREFIX} of the bucket and nothing else: no read, list or delete, no other prefix.`,
      });
    }
  }
}
