import { Stack, Token } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** Sends each alarm, and its return to OK, to the alarm topic when there is one. */
export const notifyAlarmTopic = (
  scope: Construct,
  alarmTopicArn: string | undefined,
  alarms: readonly Alarm[],
): void => {
  if (!alarmTopicArn) return;
  const action = new SnsAction(Topic.fromTopicArn(scope, 'alarm-topic', alarmTopicArn));
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
};

/**
 * An alarm on a metric above `threshold` (0 unless given: anything at all) in `toAlarm` of the
 * last `evaluation` periods (both 1 unless given). Missing data is never breaching: no traffic is
 * healthy. The description ends with the docs/operations.md section (`anchor`, the general
 * `alarms` section unless given) that says what to do.
 */
export const alarmAbove = (
  scope: Construct,
  alarmId: string,
  alarm: {
    readonly description: string;
    readonly anchor?: string;
    readonly metric: IMetric;
    readonly threshold?: number;
    readonly evaluation?: number;
    readonly toAlarm?: number;
  },
): Alarm =>
  new Alarm(scope, alarmId, {
    alarmDescription: `${alarm.description} See docs/operations.md#${alarm.anchor ?? 'alarms'}.`,
    metric: alarm.metric,
    threshold: alarm.threshold ?? 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: alarm.evaluation ?? 1,
    datapointsToAlarm: alarm.toAlarm ?? alarm.evaluation ?? 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

/** Where alarm notifications go: an existing topic, or e-mail addresses on a topic of our own. */
export interface AlarmTargetProps {
  /**
   * SNS topic for alarm notifications.
   * @default - see `alarmEmails`
   */
  readonly alarmTopicArn?: string;
  /**
   * Addresses that get every alarm and its return to OK by e-mail, through an encrypted SNS topic
   * the stack creates (each address confirms its subscription once). Not with `alarmTopicArn`.
   * @default - no e-mail; alarms without actions unless `alarmTopicArn` is set
   */
  readonly alarmEmails?: readonly string[];
}

/** A plain `local@domain.tld` shape: SNS sends a confirmation mail, which is the real check. */
const isEmailAddress = (value: string): boolean =>
  /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value) && value.length <= 254;

/** The problems with the alarm targets, for a caller that reports every problem at once. */
export const alarmTargetProblems = (props: AlarmTargetProps): string[] => {
  const emails = props.alarmEmails;
  if (emails === undefined) return [];
  const problems: string[] = [];
  if (props.alarmTopicArn !== undefined)
    problems.push(
      'alarmTopicArn and alarmEmails are mutually exclusive: subscribe the addresses to the existing topic, or leave alarmTopicArn out to have the stack create a topic for them',
    );
  if (emails.length === 0)
    problems.push('alarmEmails is empty; list at least one address or leave it out');
  for (const email of emails.filter(
    (value) => !Token.isUnresolved(value) && !isEmailAddress(value),
  ))
    problems.push(`alarmEmails: ${JSON.stringify(email)} is not an e-mail address`);
  const seen = new Set<string>();
  for (const email of emails) {
    const normalised = email.toLowerCase();
    if (seen.has(normalised)) problems.push(`alarmEmails: "${email}" is listed twice`);
    seen.add(normalised);
  }
  return problems;
};

export interface AlarmTopicProps {
  /** Each gets an e-mail subscription. */
  readonly emails: readonly string[];
  /** Encrypts the topic; its policy must let CloudWatch use it (`DataKey.allowCloudWatchAlarms`). */
  readonly encryptionKey: IKey;
}

/**
 * The stack's own alarm topic: encrypted with the data key, publishing over TLS only, published to
 * by this account's CloudWatch alarms, with one e-mail subscription per address.
 */
export class AlarmTopic extends Construct {
  public readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.topic = new Topic(this, 'topic', {
      displayName: 'msgbridge alarms',
      masterKey: props.encryptionKey,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, so CloudWatch is allowed explicitly, for alarms
    // of this account only (confused-deputy protection).
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccount',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*`,
          },
        },
      }),
    );
    for (const email of props.emails) this.topic.addSubscription(new EmailSubscription(email));
  }
}
