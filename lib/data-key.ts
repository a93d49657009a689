import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Which customer managed KMS key encrypts msgbridge's data. */
export interface DataKeyProps {
  /**
   * ARN of an existing symmetric KMS key (`arn:aws:kms:<region>:<account>:key/<id>`) to use
   * instead of creating one. Its key policy must already allow what docs/deploy.md
   * ("Encryption") lists: msgbridge cannot change the policy of a key it does not own.
   * @default - a key of msgbridge's own, with rotation on, retained when the stack is deleted
   */
  readonly keyArn?: string;
}

/** The problems with `DataKeyProps`, each named by its path below `encryption`. */
export const dataKeyProblems = (props: DataKeyProps): string[] => {
  const arn = props.keyArn;
  if (arn === undefined || Token.isUnresolved(arn)) return [];
  // A key ARN, not an alias: grants and key policies name the key itself.
  return /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/(mrk-)?[0-9a-f-]{32,36}$/.test(arn)
    ? []
    : [
        `keyArn must be the ARN of a KMS key (arn:aws:kms:<region>:<account>:key/<id>, not an alias), got "${arn}"`,
      ];
};

/**
 * The one customer managed key of the stack's data: tables, queues, the attachment bucket, log
 * groups, secrets, the event bus and its archive, the alarm topic. Created (rotation on, retained:
 * data encrypted under a deleted key is lost for good, so the key must outlive the stack) unless an
 * existing key is named.
 *
 * Functions get their use of the key from `grant*` calls on the resources they touch; the key
 * policy adds only the AWS services that encrypt for the stack without a role of ours.
 */
export class DataKey extends Construct {
  public readonly key: IKey;
  /** The key msgbridge created, or undefined when `keyArn` names an existing one. */
  public readonly ownKey: Key | undefined;

  constructor(scope: Construct, id: string, props: DataKeyProps = {}) {
    super(scope, id);
    if (props.keyArn !== undefined) {
      this.ownKey = undefined;
      this.key = Key.fromKeyArn(this, 'key', props.keyArn);
      return;
    }
    const stack = Stack.of(this);
    this.ownKey = new Key(this, 'key', {
      description: `msgbridge ${stack.stackName}: tables, queues, attachments, logs, secrets, events, alarms`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.key = this.ownKey;
    // CloudWatch Logs encrypts with the key itself, so the key policy must name it; the condition
    // keeps it to log groups of this account and region.
    this.ownKey.addToResourcePolicy(DataKey.logsStatement(stack));
  }

  /**
   * Lets CloudWatch alarms publish to a topic encrypted with this key (SNS asks KMS for a data key
   * on behalf of the publisher, here the CloudWatch service). A no-op for an imported key, whose
   * policy must already have the statement (docs/deploy.md).
   */
  public allowCloudWatchAlarms(): void {
    this.ownKey?.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublishToEncryptedTopics',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
  }

  /** The key policy statement CloudWatch Logs needs for the stack's log groups. */
  public static logsStatement(stack: Stack): PolicyStatement {
    return new PolicyStatement({
      sid: 'AllowCloudWatchLogsOfThisAccountAndRegion',
      principals: [new ServicePrincipal(`logs.${stack.region}.${stack.urlSuffix}`)],
      actions: [
        'kms:Encrypt*',
        'kms:Decrypt*',
        'kms:ReEncrypt*',
        'kms:GenerateDataKey*',
        'kms:Describe*',
      ],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*`,
        },
      },
    });
  }
}
