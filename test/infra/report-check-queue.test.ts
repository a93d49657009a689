import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { actionsOf, logicalId, problemsOf, statementsOfRole } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

/** The stack without bundling: these tests read the template only. */
const synth = (props: Partial<MsgbridgeStackProps> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'checks', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined) => logicalId(stack, construct);
  const properties = (construct: IConstruct) =>
    (template.toJSON().Resources[id(construct)] as { Properties: Record<string, unknown> })
      .Properties;
  return { stack, template, id, properties };
};

describe('the report-check queue', () => {
  it('holds a check back until it is nearly due, keeps it past the horizon, and has a DLQ', () => {
    const defaults = synth();
    const custom = synth({ reconcile: { afterMinutes: 5, horizonHours: 48 } });

    // 15 minutes at most (SQS's limit), or the wait when shorter; a day past the horizon.
    expect(defaults.properties(defaults.stack.reportChecks.queue)).toMatchObject({
      DelaySeconds: 900,
      MessageRetentionPeriod: (96 + 24) * 3_600,
      // Six times reconcile-status's 5-minute timeout, as Lambda advises for an event source.
      VisibilityTimeout: 1_800,
      RedrivePolicy: {
        deadLetterTargetArn: {
          'Fn::GetAtt': [defaults.id(defaults.stack.reportChecks.deadLetterQueue), 'Arn'],
        },
        // A check is received once per look (one put back is a new message): ten receipts of one
        // message are a check that cannot be read or whose invocations keep failing.
        maxReceiveCount: 10,
      },
    });
    expect(custom.properties(custom.stack.reportChecks.queue)).toMatchObject({
      DelaySeconds: 300,
      MessageRetentionPeriod: (48 + 24) * 3_600,
      RedrivePolicy: { maxReceiveCount: 10 },
    });
    defaults.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('report-check DLQ'),
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [defaults.id(defaults.stack.reportChecks.deadLetterQueue), 'QueueName'],
          },
        },
      ],
    });
    defaults.template.hasOutput('ReportCheckQueueUrl', {
      Value: { Ref: defaults.id(defaults.stack.reportChecks.queue) },
    });
  });

  it('lets the sender only send to it, and reconcile-status consume it and send to it', () => {
    const { template, id, stack } = synth();
    const queueArn = { 'Fn::GetAtt': [id(stack.reportChecks.queue), 'Arn'] };
    const onQueue = (roleId: string) => [
      ...new Set(
        statementsOfRole(template, roleId)
          .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(queueArn))
          .flatMap(actionsOf)
          .sort(),
      ),
    ];

    expect(onQueue(id(stack.sendPipeline.sendMessages.role))).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(onQueue(id(stack.scheduledJobs.reconcileStatus.role))).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
  });

  it('is read by reconcile-status through an event source that scales with it, up to checkConcurrency', () => {
    const defaults = synth();
    const custom = synth({ reconcile: { checkConcurrency: 200 } });
    const sourceOf = (s: ReturnType<typeof synth>) =>
      s.template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': [s.id(s.stack.reportChecks.queue), 'Arn'] },
        },
      });

    const [mapping, ...others] = Object.values(sourceOf(defaults)) as Array<{
      Properties: Record<string, unknown>;
    }>;
    expect(others).toEqual([]);
    expect(mapping?.Properties).toMatchObject({
      FunctionName: { Ref: defaults.id(defaults.stack.scheduledJobs.reconcileStatus) },
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 50 },
    });
    expect(Object.values(sourceOf(custom))[0]).toMatchObject({
      Properties: { ScalingConfig: { MaximumConcurrency: 200 } },
    });
    expect(
      problemsOf(
        () =>
          new MsgbridgeStack(new App(), 'one-reader', {
            gateway: TEST_GATEWAY,
            reconcile: { checkConcurrency: 1 },
          }),
      ),
    ).toEqual(['reconcile.checkConcurrency must be an integer from 2 to 1000, got 1']);
  });

  it('refuses a horizon longer than the queue can keep a check', () => {
    const problems = problemsOf(
      () =>
        new MsgbridgeStack(new App(), 'too-long', {
          gateway: TEST_GATEWAY,
          reconcile: { horizonHours: 313 },
        }),
    );

    expect(problems).toEqual(['reconcile.horizonHours must be an integer from 1 to 312, got 313']);
  });
});
