import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import type { FunctionSchedule } from '../../lib/function-schedule.ts';
import { gatewayCallerEnvironment } from '../support/infra-expectations.ts';
import {
  attachments,
  defaults,
  defined,
  jobs,
  polling,
  pollReportsOf,
  type Statement,
  type Synthesized,
  statementsOfRole,
  synth,
  synthJobStacks,
} from '../support/jobs-stack.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const environmentOf = (synthesized: Synthesized, fn: IFunction): Record<string, unknown> => {
  const properties = synthesized.resource(fn).Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
  return properties.Environment.Variables;
};

describe('scheduled jobs and inbound attachments infrastructure', () => {
  synthJobStacks();

  describe('schedules', () => {
    const cases: [
      string,
      () => Synthesized,
      (synthesized: Synthesized) => { fn: IFunction; schedule: FunctionSchedule | undefined },
      string,
      number,
      number,
    ][] = [
      [
        'refresh-token',
        () => defaults,
        (s) => ({ fn: jobs(s).refreshToken, schedule: jobs(s).refreshTokenSchedule }),
        'rate(5 minutes)',
        2,
        240,
      ],
      [
        'poll-reports',
        () => polling,
        (s) => ({ fn: pollReportsOf(s), schedule: jobs(s).pollReportsSchedule }),
        'rate(1 minute)',
        0,
        60,
      ],
      [
        'reconcile-status',
        () => defaults,
        (s) => ({ fn: jobs(s).reconcileStatus, schedule: jobs(s).reconcileStatusSchedule }),
        'rate(15 minutes)',
        0,
        600,
      ],
      [
        'sweep-attachments',
        () => defaults,
        (s) => ({ fn: attachments(s).sweepAttachments, schedule: attachments(s).sweepSchedule }),
        'rate(15 minutes)',
        0,
        600,
      ],
    ];

    it.each(cases)(
      'invokes %s on its rate, with its retries and maximum event age in the scheduler and in Lambda',
      (_, synthesized, parts, rate, retries, maxAgeSeconds) => {
        // Prepare
        const s = synthesized();
        const { fn, schedule } = parts(s);

        // Act
        const properties = s.resource(defined(schedule, 'schedule').schedule).Properties;
        const invokeConfigs = Object.values(
          s.template.findResources('AWS::Lambda::EventInvokeConfig', {
            Properties: { FunctionName: { Ref: s.id(fn) } },
          }),
        );

        // Assess
        expect(properties).toEqual({
          Description: expect.any(String),
          ScheduleExpression: rate,
          ScheduleExpressionTimezone: 'Etc/UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          State: 'ENABLED',
          Target: {
            Arn: { 'Fn::GetAtt': [s.id(fn), 'Arn'] },
            RoleArn: { 'Fn::GetAtt': [s.id(schedule?.role), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: retries, MaximumEventAgeInSeconds: maxAgeSeconds },
          },
        });
        expect(invokeConfigs.map((config) => config.Properties)).toEqual([
          {
            FunctionName: { Ref: s.id(fn) },
            Qualifier: '$LATEST',
            MaximumRetryAttempts: retries,
            MaximumEventAgeInSeconds: maxAgeSeconds,
          },
        ]);
      },
    );

    it.each(cases)(
      'lets the scheduler invoke %s, and nothing else, through a role of its own',
      (_, synthesized, parts) => {
        const s = synthesized();
        const { fn, schedule } = parts(s);
        const role = defined(schedule, 'schedule').role;

        const trust = s.resource(role).Properties.AssumeRolePolicyDocument as {
          Statement: Statement[];
        };

        expect(trust.Statement).toEqual([
          {
            Effect: 'Allow',
            Action: 'sts:AssumeRole',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ]);
        expect(statementsOfRole(s, role)).toEqual([
          {
            Effect: 'Allow',
            Action: 'lambda:InvokeFunction',
            Resource: { 'Fn::GetAtt': [s.id(fn), 'Arn'] },
          },
        ]);
      },
    );

    it('deploys no report poller in webhook mode', () => {
      const { stack, template } = defaults;

      expect(stack.scheduledJobs.pollReports).toBeUndefined();
      expect(stack.scheduledJobs.pollReportsSchedule).toBeUndefined();
      template.resourceCountIs('AWS::Scheduler::Schedule', 3);
      expect(JSON.stringify(template.toJSON())).not.toContain('REPORT_DELIVERY');
    });

    it.each([
      ['polling', false, 'polling', 'on'],
      ['both', false, 'both', 'off'],
      ['webhook', true, 'webhook', 'on'],
    ] as const)(
      'deploys the poller every minute with reportDelivery %s and moPolling %s',
      (reportDelivery, moPolling, expectedDelivery, expectedMo) => {
        const s = reportDelivery === 'polling' ? polling : synth({ reportDelivery, moPolling });

        const fn = pollReportsOf(s);

        s.template.resourceCountIs('AWS::Scheduler::Schedule', 4);
        expect(s.resource(jobs(s).pollReportsSchedule?.schedule).Properties).toMatchObject({
          ScheduleExpression: 'rate(1 minute)',
        });
        expect(environmentOf(s, fn)).toMatchObject({
          REPORT_DELIVERY: expectedDelivery,
          MO_POLLING: expectedMo,
        });
      },
    );
  });

  describe('functions', () => {
    it('configures refresh-token from its environment, with a 30 s timeout', () => {
      const { stack, id } = defaults;
      const fn = stack.scheduledJobs.refreshToken;

      expect(environmentOf(defaults, fn)).toEqual({
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        ...gatewayCallerEnvironment(id(stack.credentials)),
      });
      expect(defaults.resource(fn).Properties.Timeout).toBe(30);
    });

    it('gives refresh-token time for two gateway calls when the gateway timeout is long', () => {
      const fn = polling.stack.scheduledJobs.refreshToken;

      expect(polling.resource(fn).Properties.Timeout).toBe(45);
      expect(environmentOf(polling, fn).GATEWAY_TIMEOUT_MS).toBe('20000');
    });

    it('configures poll-reports from its environment, with 5 s gateway calls and a 60 s timeout', () => {
      const { stack, id } = polling;
      const fn = pollReportsOf(polling);

      expect(environmentOf(polling, fn)).toEqual({
        REPORT_DELIVERY: 'polling',
        MO_POLLING: 'on',
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        EVENT_RETENTION_DAYS: '60',
        STORE_CONCURRENCY: '8',
        ...gatewayCallerEnvironment(id(stack.credentials), {
          timeoutMs: '5000',
          namespace: 'acme/msgbridge',
        }),
        QUARANTINE_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
        PAYLOAD_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
      });
      expect(polling.resource(fn).Properties.Timeout).toBe(60);
    });

    it('keeps a gateway timeout shorter than 5 s for poll-reports', () => {
      const s = synth({ gateway: { ...TEST_GATEWAY, timeoutMs: 3_000 }, reportDelivery: 'both' });

      expect(environmentOf(s, pollReportsOf(s)).GATEWAY_TIMEOUT_MS).toBe('3000');
    });

    it('configures reconcile-status from its environment, with a 5-minute timeout', () => {
      const { stack, id } = defaults;
      const fn = stack.scheduledJobs.reconcileStatus;

      expect(environmentOf(defaults, fn)).toEqual({
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        RECONCILE_AFTER_MINUTES: '30',
        RECONCILE_HORIZON_HOURS: '96',
        RECONCILE_MAX_RECIPIENTS: '5000',
        ACCEPTED_EVENTS: 'off',
        REPORT_CHECK_QUEUE_URL: { Ref: id(stack.reportChecks.queue) },
        EVENT_RETENTION_DAYS: '35',
        STORE_CONCURRENCY: '16',
        ...gatewayCallerEnvironment(id(stack.credentials)),
        PAYLOAD_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
      });
      expect(defaults.resource(fn).Properties.Timeout).toBe(300);
    });

    it('takes the reconciliation settings from props', () => {
      expect(environmentOf(polling, polling.stack.scheduledJobs.reconcileStatus)).toMatchObject({
        RECONCILE_AFTER_MINUTES: '45',
        RECONCILE_HORIZON_HOURS: '72',
        RECONCILE_MAX_RECIPIENTS: '2000',
      });
    });

    it('configures both attachment functions from their environment', () => {
      const { stack, id } = defaults;

      for (const fn of [
        stack.inboundAttachments.fetchAttachments,
        stack.inboundAttachments.sweepAttachments,
      ]) {
        expect(environmentOf(defaults, fn)).toEqual({
          EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
          STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
          ATTACHMENT_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
          ATTACHMENT_PREFIX: 'inbound/',
          // No extra content host: content URLs may name only the gateway's own hosts.
          ATTACHMENT_CONTENT_HOSTS: '',
          EVENT_RETENTION_DAYS: '35',
          ...gatewayCallerEnvironment(id(stack.credentials)),
          ...(fn === stack.inboundAttachments.sweepAttachments ? { SWEEP_MARGIN_MS: '60000' } : {}),
        });
        expect(defaults.resource(fn).Properties).toMatchObject({ Timeout: 300, MemorySize: 512 });
      }
    });
  });
});
