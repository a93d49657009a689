import { App, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { attachmentFindings } from '../support/infra-expectations.ts';
import {
  ALARM_TOPIC,
  defaults,
  polling,
  pollReportsOf,
  type Statement,
  type Synthesized,
  statementsOfRole,
  synthJobStacks,
} from '../support/jobs-stack.ts';
import {
  acknowledgedFindings,
  actionsOf,
  problemsOf,
  stackProblems,
  withPrefix,
} from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

describe('scheduled jobs and inbound attachments infrastructure', () => {
  synthJobStacks();

  describe('IAM', () => {
    const tableArn = (s: Synthesized, table: IConstruct) => ({
      'Fn::GetAtt': [s.id(table), 'Arn'],
    });
    /** A statement allowing `actions` on `table` itself. */
    const tableStatement = (s: Synthesized, table: IConstruct, actions: string | string[]) => ({
      Effect: 'Allow',
      Action: actions,
      Resource: tableArn(s, table),
    });
    const credentialsStatement = (s: Synthesized) => ({
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: { Ref: s.id(s.stack.credentials) },
    });
    /** What an upload of any size (lib-storage's multipart upload) needs. */
    const UPLOAD_ACTIONS = [
      's3:PutObject',
      's3:AbortMultipartUpload',
      's3:ListMultipartUploadParts',
    ];
    /** The role's Secrets Manager statements. */
    const secretsOf = (s: Synthesized, fn: IFunction) =>
      withPrefix(statementsOfRole(s, fn.role), 'secretsmanager:');
    /** Every table and index statement of a role, in the order granted. */
    const dynamodbOf = (s: Synthesized, fn: IFunction) =>
      withPrefix(statementsOfRole(s, fn.role), 'dynamodb:').filter(
        (statement) => !JSON.stringify(statement.Resource).includes('StreamArn'),
      );

    it('lets refresh-token read and write the token item only, and read the credentials', () => {
      const s = defaults;
      const fn = s.stack.scheduledJobs.refreshToken;

      expect(dynamodbOf(s, fn)).toEqual([
        tableStatement(s, s.stack.stateTable, ['dynamodb:GetItem', 'dynamodb:PutItem']),
      ]);
      expect(secretsOf(s, fn)).toEqual([credentialsStatement(s)]);
    });

    it('lets poll-reports put into the event table and use the token and its leases', () => {
      const s = polling;
      const fn = pollReportsOf(s);

      expect(dynamodbOf(s, fn)).toEqual([
        tableStatement(s, s.stack.stateTable, [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:DeleteItem',
          'dynamodb:UpdateItem',
        ]),
        tableStatement(s, s.stack.eventTable, 'dynamodb:PutItem'),
      ]);
      expect(secretsOf(s, fn)).toEqual([credentialsStatement(s)]);
    });

    it('lets poll-reports put, get, delete and list below quarantine/polled/ of the attachment bucket only', () => {
      const s = polling;
      const fn = pollReportsOf(s);
      const bucket = s.id(s.stack.inboundAttachments.bucket);
      const bucketArn = { 'Fn::GetAtt': [bucket, 'Arn'] };

      // Other prefixes of the same bucket (payloads/) are granted for other reasons.
      const onBucket = withPrefix(statementsOfRole(s, fn.role), 's3:').filter(
        (statement) =>
          JSON.stringify(statement.Resource).includes('/quarantine/polled/') ||
          actionsOf(statement).some((action) => !action.startsWith('s3:PutObject')),
      );

      expect(onBucket).toEqual([
        {
          Effect: 'Allow',
          Action: [...UPLOAD_ACTIONS, 's3:GetObject', 's3:DeleteObject'],
          Resource: { 'Fn::Join': ['', [bucketArn, '/quarantine/polled/*']] },
        },
        {
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: bucketArn,
          Condition: { StringLike: { 's3:prefix': ['quarantine/polled/*'] } },
        },
      ]);
      const kms = withPrefix(statementsOfRole(s, fn.role), 'kms:').filter((statement) =>
        JSON.stringify(statement.Resource).includes(s.id(s.stack.dataKey.key)),
      );
      expect(kms.flatMap(actionsOf)).toEqual(
        expect.arrayContaining(['kms:GenerateDataKey', 'kms:Decrypt']),
      );
    });

    it('lets reconcile-status query the awaiting-report index, and no other index', () => {
      const s = defaults;
      const fn = s.stack.scheduledJobs.reconcileStatus;

      expect(dynamodbOf(s, fn)).toEqual([
        tableStatement(s, s.stack.stateTable, [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:DeleteItem',
        ]),
        tableStatement(s, s.stack.eventTable, [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
        ]),
        {
          Effect: 'Allow',
          Action: 'dynamodb:Query',
          Resource: {
            'Fn::Join': ['', [tableArn(s, s.stack.eventTable), '/index/awaiting-report']],
          },
        },
      ]);
      expect(secretsOf(s, fn)).toEqual([credentialsStatement(s)]);
    });

    it.each([
      ['fetch-attachments', (s: Synthesized) => s.stack.inboundAttachments.fetchAttachments, []],
      [
        'sweep-attachments',
        (s: Synthesized) => s.stack.inboundAttachments.sweepAttachments,
        ['dynamodb:Scan'],
      ],
    ])(
      'lets %s keep markers and events, and write objects below inbound/ of the bucket only',
      (_, fnOf, extraStateActions) => {
        const s = defaults;
        const fn = fnOf(s);
        const bucket = s.stack.inboundAttachments.bucket;

        const statements = statementsOfRole(s, fn.role);

        expect(dynamodbOf(s, fn)).toEqual([
          tableStatement(s, s.stack.stateTable, [
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:DeleteItem',
            ...extraStateActions,
          ]),
          tableStatement(s, s.stack.eventTable, ['dynamodb:GetItem', 'dynamodb:PutItem']),
        ]);
        expect(withPrefix(statements, 's3:')).toEqual([
          {
            Effect: 'Allow',
            Action: [...UPLOAD_ACTIONS, 's3:GetObject'],
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [s.id(bucket), 'Arn'] }, '/inbound/*']] },
          },
        ]);
        expect(withPrefix(statements, 'secretsmanager:')).toEqual([credentialsStatement(s)]);
      },
    );

    it('gives the stream reader of the attachments only the stream and its on-failure queue', () => {
      const s = defaults;
      const statements = statementsOfRole(s, s.stack.inboundAttachments.fetchAttachments.role);

      const streams = statements.filter((statement) =>
        JSON.stringify(statement.Resource).includes('StreamArn'),
      );

      expect(streams.flatMap(actionsOf).sort()).toEqual([
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
      ]);
      expect(withPrefix(statements, 'sqs:')).toEqual([
        expect.objectContaining({
          Action: expect.arrayContaining(['sqs:SendMessage']),
          Resource: { 'Fn::GetAtt': [s.id(s.stack.inboundAttachments.onFailureQueue), 'Arn'] },
        }),
      ]);
    });

    it('grants no wildcard action, no index but awaiting-report, and S3 to the attachment functions only', () => {
      for (const s of [defaults, polling]) {
        const policies = Object.values(s.template.findResources('AWS::IAM::Policy'));
        const statements = policies.flatMap(
          (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
        );

        for (const action of statements.flatMap(actionsOf)) expect(action).not.toMatch(/\*/);
        const indexStatements = statements.filter((statement) =>
          JSON.stringify(statement.Resource).includes('/index/'),
        );
        expect(indexStatements).toEqual([
          expect.objectContaining({
            Action: 'dynamodb:Query',
            Resource: expect.objectContaining({
              'Fn::Join': ['', [expect.anything(), '/index/awaiting-report']],
            }),
          }),
        ]);
        const withS3 = policies
          .filter((policy) =>
            (policy.Properties.PolicyDocument.Statement as Statement[]).some((statement) =>
              actionsOf(statement).some((action) => action.startsWith('s3:')),
            ),
          )
          .map((policy) => policy.Properties.Roles);
        // poll-reports, where deployed, keeps unstored polled pages below quarantine/polled/.
        expect(withS3).toEqual(
          expect.arrayContaining([
            [{ Ref: s.id(s.stack.inboundAttachments.fetchAttachments.role) }],
            [{ Ref: s.id(s.stack.inboundAttachments.sweepAttachments.role) }],
          ]),
        );
        if (s === polling) expect(withS3).toContainEqual([{ Ref: s.id(pollReportsOf(s).role) }]);
      }
    });

    it('gives the functions no managed policy', () => {
      const s = polling;

      for (const fn of [
        s.stack.scheduledJobs.refreshToken,
        pollReportsOf(s),
        s.stack.scheduledJobs.reconcileStatus,
        s.stack.inboundAttachments.fetchAttachments,
        s.stack.inboundAttachments.sweepAttachments,
      ])
        expect(s.resource(fn.role).Properties.ManagedPolicyArns).toBeUndefined();
    });
  });

  describe('props validation', () => {
    it('lists every problem of the new settings in one error', () => {
      const props: unknown = {
        gateway: TEST_GATEWAY,
        reportDelivery: 'sometimes',
        moPolling: 'yes',
        reconcile: { afterMinutes: 0, horizonHours: 3_000, maxRecipients: 5 },
        attachments: { expireAfterDays: 0, infrequentAccessAfterDays: 10 },
      };

      const problems = problemsOf(
        () => new MsgbridgeStack(new App(), 'invalid', props as MsgbridgeStackProps),
      );

      expect(problems).toEqual([
        'reportDelivery must be "webhook", "polling" or "both", got "sometimes"',
        'moPolling must be true or false, got "yes"',
        'reconcile.afterMinutes must be an integer from 1 to 1440, got 0',
        'reconcile.horizonHours must be an integer from 1 to 312, got 3000',
        'reconcile.maxRecipients must be an integer from 10 to 100000, got 5',
        'attachments.expireAfterDays must be an integer from 1 to 36500, got 0',
        'attachments.infrequentAccessAfterDays must be an integer from 30 to 36500, got 10',
      ]);
    });

    it('refuses a horizon shorter than the wait, and a move to Standard-IA after the expiry', () => {
      const problems = stackProblems({
        reconcile: { afterMinutes: 120, horizonHours: 2 },
        attachments: { expireAfterDays: 60, infrequentAccessAfterDays: 60 },
        sending: { maxReceiveCount: 3 },
      });

      expect(problems).toEqual([
        'sending.maxReceiveCount must be an integer from 5 to 1000, got 3',
        'reconcile.horizonHours (2 h) must be longer than reconcile.afterMinutes (120 min)',
        'attachments.infrequentAccessAfterDays (60) must be fewer than expireAfterDays (60), or the objects expire before they move',
      ]);
    });

    it('reads the new settings from the msgbridge context', () => {
      const props = stackPropsFromContext({
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
        attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      });

      expect(props).toEqual({
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
        attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      });
    });

    it('names misspelt or mistyped context settings by their paths', () => {
      const problems = problemsOf(() =>
        stackPropsFromContext({
          gateway: TEST_GATEWAY,
          reportDelivery: 'poll',
          moPolling: 'on',
          reconcile: { afterMinuts: 45 },
          attachments: { expireAfterDays: '365' },
        }),
      );

      for (const path of [
        'msgbridge.reportDelivery',
        'msgbridge.moPolling',
        'msgbridge.reconcile',
        'msgbridge.attachments.expireAfterDays',
      ])
        expect(problems.some((problem) => problem.startsWith(path))).toBe(true);
      expect(problems.some((problem) => problem.includes('afterMinuts'))).toBe(true);
    });
  });

  describe('cdk-nag', () => {
    it('passes the AwsSolutions checks with polling, MO polling, lifecycle props and an alarm topic', () => {
      const app = new App();
      new MsgbridgeStack(app, 'msgbridge-nag-jobs', {
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        attachments: { expireAfterDays: 400, infrequentAccessAfterDays: 30 },
        alarmTopicArn: ALARM_TOPIC,
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      // Synthesis throws on any unacknowledged error.
      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-jobs']);
    });

    it('acknowledges only the reviewed findings of the jobs and the attachments, each with a reason', () => {
      const { stack, id } = polling;
      const scopes = [stack.scheduledJobs, stack.inboundAttachments];

      const acknowledged = acknowledgedFindings(
        scopes.flatMap((scope) => scope.node.findAll()),
        'msgbridge-jobs',
      );

      for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(80);
      // The claim check: large bodies kept below payloads/ by the functions that store items.
      const payloads = `AwsSolutions-IAM5[Resource::<${id(stack.inboundAttachments.bucket)}.Arn>/payloads/*]`;
      expect(acknowledged.map(({ path, rule }) => `${path} ${rule}`).sort()).toEqual(
        [
          'scheduled-jobs/refresh-token-role AwsSolutions-IAM5[Resource::*]',
          'scheduled-jobs/poll-reports-role AwsSolutions-IAM5[Resource::*]',
          `scheduled-jobs/poll-reports-role AwsSolutions-IAM5[Resource::<${id(stack.inboundAttachments.bucket)}.Arn>/quarantine/polled/*]`,
          `scheduled-jobs/poll-reports-role ${payloads}`,
          'scheduled-jobs/reconcile-status-role AwsSolutions-IAM5[Resource::*]',
          `scheduled-jobs/reconcile-status-role ${payloads}`,
          ...attachmentFindings(id(stack.inboundAttachments.bucket)),
        ].sort(),
      );
    });
  });
});
