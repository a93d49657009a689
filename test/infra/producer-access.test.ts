/**
 * Producers outside the CDK app, through the IAM replay (test/support/iam-replay.ts) on the
 * synthesized template: a producer of another account named in `sending.producers` sends with the
 * statements docs/operations.md gives it (the exported producer policy's, in an IAM policy of its
 * own account); without the prop the queue's and key's policies refuse it, as cross-account access
 * needs both sides to allow it. The same-account producer is replayed on a real send of the local
 * run (test/e2e/iam-replay.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesOfType, StackTemplate } from '../../aws-semantics/cloudformation-template.ts';
import type { RecordedCall } from '../../local/aws/call-recorder.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { cdkJsonContext, synthesizeStack } from '../../local/stack/synthesize.ts';
import {
  describeDenials,
  type PolicyDocument,
  type Role,
  replayIam,
} from '../support/iam-replay.ts';
import { stackProblems } from '../support/stack-template.ts';

const OTHER_ACCOUNT_ROLE = 'arn:aws:iam::210987654321:role/orders-service';
const OTHER_ACCOUNT = '345678901234';

const modelOf = (producers?: readonly string[]): DeploymentModel => {
  const base = (cdkJsonContext().msgbridge as { sending?: Record<string, unknown> }).sending;
  const { template } = synthesizeStack(
    producers ? { settings: { sending: { ...base, producers } } } : {},
  );
  return new DeploymentModel(new StackTemplate(template), {
    region: 'ap-northeast-2',
    account: '123456789012',
    partition: 'aws',
    stackName: 'msgbridge',
  });
};

/** The producer policy the stack exports, as the other account would copy it. */
const exportedPolicy = (model: DeploymentModel): PolicyDocument => {
  const [, policy] =
    resourcesOfType(model.stack.template, 'AWS::IAM::ManagedPolicy').find(([id]) =>
      /producerpolicy/i.test(id),
    ) ?? [];
  if (!policy) throw new Error('no producer policy in the template');
  return model.resolve(policy.Properties?.PolicyDocument) as PolicyDocument;
};

/** What a producer's SDK asks of SQS: a batch on the send queue of `model`. */
const sendCall = (model: DeploymentModel, producer: string): RecordedCall => {
  const queue = model.stack.queues().find((each) => /sendqueue/i.test(each.logicalId));
  return {
    functionName: producer,
    service: 'SQS',
    operation: 'SendMessageBatch',
    input: { QueueUrl: model.physical(queue?.logicalId ?? '').ref },
  };
};

const replayAs = (model: DeploymentModel, arn: string) => {
  const producer: Role = {
    arn,
    policies: [{ name: 'msgbridge-producer', policy: exportedPolicy(model) }],
  };
  return replayIam({ model, deployed: model }, [sendCall(model, 'orders-service')], {
    principals: new Map([['orders-service', producer]]),
  });
};

let named: DeploymentModel;
let unnamed: DeploymentModel;

beforeAll(() => {
  named = modelOf([OTHER_ACCOUNT_ROLE, OTHER_ACCOUNT]);
  unnamed = modelOf();
});

describe('a producer in another account', () => {
  it('sends when sending.producers names its role, with the exported statements in its own policy', async () => {
    const result = await replayAs(named, OTHER_ACCOUNT_ROLE);

    expect(result.unreadable).toEqual([]);
    expect(describeDenials(result.denials)).toBe('');
    expect(result.checked).toBe(3);
  });

  it('sends when sending.producers names its account', async () => {
    const result = await replayAs(named, `arn:aws:iam::${OTHER_ACCOUNT}:role/any-role`);

    expect(describeDenials(result.denials)).toBe('');
  });

  it('is refused the queue and its key when the prop does not name it', async () => {
    const result = await replayAs(unnamed, OTHER_ACCOUNT_ROLE);

    expect(result.denials.map((denial) => denial.request.action).sort()).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey',
      'sqs:SendMessage',
    ]);
  });

  it('is refused when another account is named instead', async () => {
    const result = await replayAs(named, 'arn:aws:iam::999988887777:role/orders-service');

    expect(result.denials).toHaveLength(3);
  });
});

describe('sending.producers', () => {
  it('names each producer in the queue policy and the key policy, through SQS only', () => {
    const statementsOf = (type: string) =>
      resourcesOfType(named.stack.template, type).flatMap(([, resource]) => {
        const document = (resource.Properties?.PolicyDocument ?? resource.Properties?.KeyPolicy) as
          | { Statement?: Array<Record<string, unknown>> }
          | undefined;
        return (document?.Statement ?? []).map((statement) => named.resolve(statement));
      });
    expect(statementsOf('AWS::SQS::QueuePolicy')).toContainEqual(
      expect.objectContaining({
        Sid: 'AllowNamedProducersToSend',
        Principal: {
          AWS: [OTHER_ACCOUNT_ROLE, `arn:aws:iam::${OTHER_ACCOUNT}:root`],
        },
      }),
    );
    expect(statementsOf('AWS::KMS::Key')).toContainEqual(
      expect.objectContaining({
        Sid: 'AllowNamedProducersToEncryptSendQueueMessages',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Condition: { StringEquals: { 'kms:ViaService': 'sqs.ap-northeast-2.amazonaws.com' } },
      }),
    );
  });

  it('refuses what is neither a role ARN nor an account id', () => {
    expect(
      stackProblems({
        egress: { mode: 'none' },
        sending: { producers: ['orders-service', 'arn:aws:iam::210987654321:user/ops'] },
      }),
    ).toEqual([
      'sending.producers: "orders-service" is neither an IAM role ARN (arn:aws:iam::<account>:role/<name>) nor an account id (12 digits)',
      'sending.producers: "arn:aws:iam::210987654321:user/ops" is neither an IAM role ARN (arn:aws:iam::<account>:role/<name>) nor an account id (12 digits)',
    ]);
  });
});
