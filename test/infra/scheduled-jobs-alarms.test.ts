import { describe, expect, it } from 'vitest';
import { alarmAbove, queueMessagesMetric, serviceMetric } from '../support/infra-expectations.ts';
import {
  ALARM_TOPIC,
  defaults,
  defined,
  polling,
  type Synthesized,
  synth,
  synthJobStacks,
} from '../support/jobs-stack.ts';

/** A poller's alarm on no poll in 5 minutes: a sum under 1, also when no poller reports at all. */
const NO_POLL_IN_5_MINUTES = alarmAbove('Sum', 300, {
  ComparisonOperator: 'LessThanThreshold',
  Threshold: 1,
  TreatMissingData: 'breaching',
});

describe('scheduled jobs and inbound attachments infrastructure', () => {
  synthJobStacks();

  describe('alarms', () => {
    it.each([
      [
        'TokenRefreshFailures: any failure in 2 of 3 five-minute periods',
        (s: Synthesized) => s.stack.scheduledJobs.tokenRefreshFailures,
        (_s: Synthesized) => ({
          ...serviceMetric('msgbridge', 'refresh-token', 'TokenRefreshFailures'),
          ...alarmAbove('Sum', 300, { EvaluationPeriods: 3, DatapointsToAlarm: 2 }),
        }),
      ],
      [
        'TokenMinutesLeft: under 8 minutes, or no refresher reporting',
        (s: Synthesized) => s.stack.scheduledJobs.tokenMinutesLeft,
        (_s: Synthesized) => ({
          ...serviceMetric('msgbridge', 'refresh-token', 'TokenMinutesLeft'),
          ...alarmAbove('Minimum', 300, {
            ComparisonOperator: 'LessThanThreshold',
            Threshold: 8,
            EvaluationPeriods: 2,
            DatapointsToAlarm: 2,
            TreatMissingData: 'breaching',
          }),
        }),
      ],
      [
        'StatusUnavailable: any in 15 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.statusUnavailable,
        (_s: Synthesized) => ({
          ...serviceMetric('msgbridge', 'reconcile-status', 'StatusUnavailable'),
          ...alarmAbove('Sum', 900),
        }),
      ],
      [
        'ReconcileStoreFailures: any in 15 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.reconcileStoreFailures,
        (_s: Synthesized) => ({
          ...serviceMetric('msgbridge', 'reconcile-status', 'ReconcileStoreFailures'),
          ...alarmAbove('Sum', 900),
        }),
      ],
      [
        'NotQueried: in 3 runs in a row',
        (s: Synthesized) => s.stack.scheduledJobs.notQueried,
        (_s: Synthesized) => ({
          ...serviceMetric('msgbridge', 'reconcile-status', 'NotQueried'),
          ...alarmAbove('Sum', 900, { EvaluationPeriods: 3, DatapointsToAlarm: 3 }),
        }),
      ],
      [
        'sweep-attachments Errors: any in 15 minutes',
        (s: Synthesized) => s.stack.inboundAttachments.sweepErrors,
        (s: Synthesized) => ({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [
            {
              Name: 'FunctionName',
              Value: { Ref: s.id(s.stack.inboundAttachments.sweepAttachments) },
            },
          ],
          ...alarmAbove('Sum', 900),
        }),
      ],
      [
        'the attachments on-failure queue: as soon as it holds a message',
        (s: Synthesized) => s.stack.inboundAttachments.onFailureQueueNotEmpty,
        (s: Synthesized) => ({
          ...queueMessagesMetric(s.id(s.stack.inboundAttachments.onFailureQueue)),
          ...alarmAbove('Maximum', 60),
        }),
      ],
    ])('alarms on %s', (_, alarmOf, expected) => {
      const alarm = defaults.resource(alarmOf(defaults)).Properties;

      expect(alarm).toMatchObject(expected(defaults));
      expect(alarm.AlarmDescription).toMatch(/See docs\/operations\.md#[a-z-]+\.$/);
    });

    it('alarms on AttachmentsLost of either attachment function', () => {
      const alarm = defaults.resource(defaults.stack.inboundAttachments.attachmentsLost).Properties;

      expect(alarm).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.Metrics).toEqual(
        expect.arrayContaining(
          ['fetch-attachments', 'sweep-attachments'].map((service) =>
            expect.objectContaining({
              MetricStat: {
                Metric: serviceMetric('msgbridge', service, 'AttachmentsLost'),
                Period: 900,
                Stat: 'Sum',
              },
              ReturnData: false,
            }),
          ),
        ),
      );
      expect(alarm.Metrics).toContainEqual(
        expect.objectContaining({ Expression: 'FILL(fetch, 0) + FILL(sweep, 0)' }),
      );
    });

    it.each([
      [
        'PollLagSeconds: a report older than 5 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.pollLag,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'PollLagSeconds'),
          ...alarmAbove('Maximum', 300, { Threshold: 300 }),
        },
      ],
      [
        'PagesUnconfirmed: in 3 of 5 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.pagesUnconfirmed,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'PagesUnconfirmed'),
          ...alarmAbove('Sum', 60, { EvaluationPeriods: 5, DatapointsToAlarm: 3 }),
        },
      ],
      [
        'ReportPolls: none for 5 minutes, also when no poller reports at all',
        (s: Synthesized) => s.stack.scheduledJobs.reportPollerStopped,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'ReportPolls'),
          ...NO_POLL_IN_5_MINUTES,
        },
      ],
      [
        'MoPolls: none for 5 minutes, also when no poller reports at all',
        (s: Synthesized) => s.stack.scheduledJobs.moPollerStopped,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'MoPolls'),
          ...NO_POLL_IN_5_MINUTES,
        },
      ],
      [
        'PolledPagesInQuarantine: a kept page still there in 3 five-minute periods in a row',
        (s: Synthesized) => s.stack.scheduledJobs.polledPagesInQuarantine,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'PolledPagesInQuarantine'),
          ...alarmAbove('Minimum', 300, { EvaluationPeriods: 3, DatapointsToAlarm: 3 }),
        },
      ],
      [
        'InboundMessagesNotStored: any',
        (s: Synthesized) => s.stack.scheduledJobs.inboundMessagesNotStored,
        {
          ...serviceMetric('acme/msgbridge', 'poll-reports', 'InboundMessagesNotStored'),
          ...alarmAbove('Sum', 300),
        },
      ],
    ])('alarms, when polling, on %s', (_, alarmOf, expected) => {
      const alarm = polling.resource(defined(alarmOf(polling), 'alarm')).Properties;

      expect(alarm).toMatchObject(expected);
    });

    it('has no polling alarms in webhook mode, and no MO alarms without MO polling', () => {
      const both = synth({ reportDelivery: 'both' });

      const { scheduledJobs } = defaults.stack;
      for (const alarm of [
        scheduledJobs.pollLag,
        scheduledJobs.pagesUnconfirmed,
        scheduledJobs.reportPollerStopped,
        scheduledJobs.moPollerStopped,
        scheduledJobs.inboundMessagesNotStored,
        scheduledJobs.polledPagesInQuarantine,
      ])
        expect(alarm).toBeUndefined();
      expect(both.stack.scheduledJobs.reportPollerStopped).toBeDefined();
      expect(both.stack.scheduledJobs.moPollerStopped).toBeUndefined();
      expect(both.stack.scheduledJobs.inboundMessagesNotStored).toBeUndefined();
      const metricNames = Object.values(
        defaults.template.findResources('AWS::CloudWatch::Alarm'),
      ).map((alarm) => alarm.Properties.MetricName);
      for (const metricName of ['PollLagSeconds', 'PagesUnconfirmed', 'ReportPolls', 'MoPolls'])
        expect(metricNames).not.toContain(metricName);
    });

    it('notifies the alarm topic of every alarm and its recovery only when one is given', () => {
      for (const [s, actions] of [
        [defaults, undefined],
        [polling, [ALARM_TOPIC]],
      ] as const) {
        const alarms = [...s.stack.scheduledJobs.alarms, ...s.stack.inboundAttachments.alarms];
        expect(alarms).toHaveLength(s === polling ? 14 : 8);
        for (const alarm of alarms) {
          const properties = s.resource(alarm).Properties;
          expect(properties.AlarmActions).toEqual(actions);
          expect(properties.OKActions).toEqual(actions);
        }
      }
    });
  });
});
