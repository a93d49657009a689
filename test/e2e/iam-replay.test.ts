/**
 * The IAM replay (test/support/iam-replay.ts) on a real local run: every call the functions made
 * is allowed by the synthesized policies, and a policy changed the way a careless edit would
 * change it (a grant removed, a condition tightened, a KMS grant dropped, a resource policy that
 * denies) makes the replay name the function, the call and the permission.
 */
import { rmSync } from 'node:fs';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CfnTemplate,
  referencedId,
  resourcesOfType,
  StackTemplate,
} from '../../aws-semantics/cloudformation-template.ts';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../../functions/send-contract/queue-message.ts';
import { AwsCallRecorder } from '../../local/aws/call-recorder.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { localClientConfig } from '../../local/dynamodb-local.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { enqueueSend } from '../../producer/enqueue-send.ts';
import { waitFor } from '../support/e2e-wait.ts';
import { describeDenials, type PolicyDocument, replayIam } from '../support/iam-replay.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

let bridge: LocalBridge;
const run = namedLocalRun('iam');
const { dataDir } = run;

beforeAll(async () => {
  bridge = await startLocalBridge(
    run.options({ tpsQuota: 100, simulator: { reportDelayMs: 200, failureRate: 0, seed: 5 } }),
  );
  // A send (its report by webhook) and an inbound message with an attachment: every function
  // on the way makes its calls.
  const { queued } = await enqueueSend(bridge.sqs, bridge.urls.sendQueue, [
    { channel: 'sms', ...smsBody(2) } as SendMessageInput,
  ]);
  if (queued.length !== 1) throw new Error('the send was not queued');
  bridge.sim.injectMo([
    {
      moType: 'MMSMO',
      moCallback: '01012345678',
      moNumber: '15880000',
      moMsg: '사진 보냅니다',
      attachments: [{ name: 'photo.jpg', contentType: 'image/jpeg', sizeBytes: 2_000 }],
    },
  ]);
  const arrived = await waitFor(
    () =>
      bridge.bus.details('Delivery Report Received').length >= 2 &&
      bridge.bus.details('Inbound Attachment Stored').length >= 1,
    60_000,
    200,
  );
  if (!arrived) throw new Error('the run did not publish its reports and attachment in time');
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The deployed model of a copy of the run's template, after `change`. */
const deployedWith = (change: (template: CfnTemplate) => void): DeploymentModel => {
  const template = structuredClone(bridge.stack.template);
  change(template);
  return new DeploymentModel(new StackTemplate(template), bridge.deployment.deployed.environment);
};

/** The statements of the policies attached to a function's role. */
const statementsOf = (
  template: CfnTemplate,
  functionName: string,
): Array<Record<string, unknown>> => {
  const stack = new StackTemplate(template);
  const roleId = stack.functions().find((fn) => fn.name === functionName)?.roleId;
  return resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      ((policy.Properties?.Roles ?? []) as unknown[]).some((ref) => referencedId(ref) === roleId),
    )
    .flatMap(([, policy]) => policyStatements(policy.Properties?.PolicyDocument));
};

/** The statements of a policy document, which the test edits in place. */
const policyStatements = (document: unknown): Array<Record<string, unknown>> => {
  const statements = (document as { Statement?: unknown } | undefined)?.Statement;
  if (!Array.isArray(statements)) throw new Error('a policy document without statements');
  return statements as Array<Record<string, unknown>>;
};

const actionsOf = (statement: Record<string, unknown>): string[] =>
  [statement.Action ?? []].flat() as string[];

/** Removes `action` from every statement of the function's role. */
const withoutAction = (functionName: string, action: string) => (template: CfnTemplate) => {
  const statements = statementsOf(template, functionName);
  let removed = 0;
  for (const statement of statements) {
    const actions = actionsOf(statement);
    if (!actions.includes(action)) continue;
    statement.Action = actions.filter((each) => each !== action);
    removed += 1;
  }
  // The planted change must change something, or the test below proves nothing.
  expect(removed, `${functionName}'s role grants ${action}`).toBeGreaterThan(0);
};

describe('IAM replay of a local run', () => {
  it('finds every call the functions made allowed by the synthesized policies', async () => {
    const result = await replayIam(bridge.deployment, bridge.recorder.calls);

    expect(result.unreadable).toEqual([]);
    expect(describeDenials(result.denials)).toBe('');
    // The calls of every function on the way of a send, a report and an inbound attachment.
    const callers = new Set(bridge.recorder.calls.map((call) => call.functionName));
    for (const fn of [
      'send-messages',
      'receive-reports',
      'receive-inbound',
      'publish-events',
      'fetch-attachments',
    ])
      expect(callers, fn).toContain(fn);
    expect(result.checked).toBeGreaterThan(30);
    expect(result.grants.used.length).toBeGreaterThan(0);
  });

  it('names the function, the call and the action when a grant is removed', async () => {
    const deployed = deployedWith(
      withoutAction('receive-reports', 'secretsmanager:GetSecretValue'),
    );

    const result = await replayIam(
      { model: bridge.deployment.model, deployed },
      bridge.recorder.calls,
    );

    const text = describeDenials(result.denials);
    expect(text).toContain(
      'receive-reports: SecretsManager.GetSecretValue needs secretsmanager:GetSecretValue on arn:aws:secretsmanager:',
    );
    // Only the function whose role changed is refused.
    expect(new Set(result.denials.map((denial) => denial.request.functionName))).toEqual(
      new Set(['receive-reports']),
    );
  });

  it('applies a condition: a tightened dynamodb:LeadingKeys refuses the items the function writes', async () => {
    const deployed = deployedWith((template) => {
      let tightened = 0;
      for (const statement of statementsOf(template, 'publish-events')) {
        const condition = statement.Condition as
          | { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } }
          | undefined;
        const keys = condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        if (!keys) continue;
        condition['ForAllValues:StringLike'] = { 'dynamodb:LeadingKeys': ['NOT-PUBLISH#*'] };
        tightened += 1;
      }
      expect(tightened).toBeGreaterThan(0);
    });

    const result = await replayIam(
      { model: bridge.deployment.model, deployed },
      bridge.recorder.calls,
    );

    const refused = result.denials.filter(
      (denial) =>
        denial.request.functionName === 'publish-events' &&
        denial.request.action.startsWith('dynamodb:') &&
        denial.request.resource.includes('statetable'),
    );
    expect(refused.length, describeDenials(result.denials)).toBeGreaterThan(0);
    expect(refused.every((denial) => 'dynamodb:LeadingKeys' in denial.request.context)).toBe(true);
  });

  it('asks for the KMS permission a read of an encrypted table needs', async () => {
    const deployed = deployedWith(withoutAction('publish-events', 'kms:Decrypt'));

    const result = await replayIam(
      { model: bridge.deployment.model, deployed },
      bridge.recorder.calls,
    );

    const text = describeDenials(result.denials);
    expect(text).toMatch(
      /publish-events: DynamoDBStreams\.GetRecords needs kms:Decrypt on arn:aws:kms:/,
    );
    expect(
      result.denials.every((denial) => denial.request.action === 'kms:Decrypt'),
      text,
    ).toBe(true);
  });

  it('honours an explicit deny in a queue policy', async () => {
    const deployed = deployedWith((template) => {
      const stack = new StackTemplate(template);
      const sendQueueId = stack
        .queues()
        .find((queue) => /sendpipelinesendqueue/i.test(queue.logicalId))?.logicalId;
      expect(sendQueueId).toBeDefined();
      const holder = resourcesOfType(template, 'AWS::SQS::QueuePolicy').find(([, policy]) =>
        ((policy.Properties?.Queues ?? []) as unknown[]).some(
          (ref) => referencedId(ref) === sendQueueId,
        ),
      );
      expect(holder, 'the send queue has a queue policy').toBeDefined();
      policyStatements(holder?.[1].Properties?.PolicyDocument).push({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:DeleteMessage',
        Resource: '*',
      });
    });

    const result = await replayIam(
      { model: bridge.deployment.model, deployed },
      bridge.recorder.calls,
    );

    const refused = result.denials.filter(
      (denial) => denial.request.action === 'sqs:DeleteMessage',
    );
    expect(refused.map((denial) => denial.request.functionName)).toContain('send-messages');
    expect(refused.every((denial) => denial.result === 'ExplicitlyDenied')).toBe(true);
  });
});

describe('IAM replay of a producer outside the app', () => {
  /** A producer's role of the same account, holding only `policy`. */
  const producerWith = (name: string, policy: PolicyDocument) =>
    new Map([
      [
        'orders-service',
        {
          arn: `arn:aws:iam::${bridge.deployment.deployed.environment.account}:role/orders-service`,
          policies: [{ name, policy }],
        },
      ],
    ]);

  /** The producer's calls: a real send to the local run's queue, recorded as its own. */
  const producerCalls = async () => {
    const recorder = new AwsCallRecorder();
    const sqs = recorder.attach(
      new SQSClient(localClientConfig(bridge.urls.sqs)),
      'orders-service',
    );
    const { queued } = await enqueueSend(sqs, bridge.urls.sendQueue, [
      { channel: 'sms', ...smsBody(1) } as SendMessageInput,
    ]);
    expect(queued).toHaveLength(1);
    return recorder.calls;
  };

  /** The managed policy the stack exports for producers (output SendProducerPolicyArn). */
  const exportedPolicy = (): PolicyDocument => {
    const model = bridge.deployment.deployed;
    const [, policy] =
      resourcesOfType(model.stack.template, 'AWS::IAM::ManagedPolicy').find(([id]) =>
        /producerpolicy/i.test(id),
      ) ?? [];
    expect(policy, 'the stack exports a producer policy').toBeDefined();
    return model.resolve(policy?.Properties?.PolicyDocument) as PolicyDocument;
  };

  it('sends with the managed policy the stack exports, and nothing else', async () => {
    const calls = await producerCalls();

    const result = await replayIam(bridge.deployment, calls, {
      principals: producerWith('SendProducerPolicy', exportedPolicy()),
    });

    expect(result.unreadable).toEqual([]);
    expect(describeDenials(result.denials)).toBe('');
    // The send, and the two KMS calls SQS makes with the producer's permissions.
    expect(result.checked).toBe(3);
  });

  it('is refused the queue key with sqs:SendMessage alone (what SendQueueArn used to promise)', async () => {
    const calls = await producerCalls();
    const deployed = bridge.deployment.deployed;
    const queueId = deployed.stack.queues().find((queue) => /sendqueue/i.test(queue.logicalId));
    const queueArn = deployed.physical(queueId?.logicalId ?? '').attributes.Arn;

    const result = await replayIam(bridge.deployment, calls, {
      principals: producerWith('SendMessageOnly', {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn }],
      }),
    });

    expect(queueArn).toMatch(/^arn:aws:sqs:/);
    expect(
      result.denials.map((denial) => `${denial.request.call} ${denial.request.action}`).sort(),
    ).toEqual(['SQS.SendMessageBatch kms:Decrypt', 'SQS.SendMessageBatch kms:GenerateDataKey']);
  });
});
