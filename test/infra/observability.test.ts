import { App, CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { documentedMetrics } from '../support/metrics-docs.ts';
import { synthesizedBeforeAll } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly id: (construct: IConstruct) => string;
  readonly properties: (construct: IConstruct) => Record<string, unknown>;
  /** The dashboard body's literal text, with every token part left out. */
  readonly bodyText: string;
  /** The dashboard body's token parts (`Ref`, `Fn::GetAtt`), as JSON. */
  readonly bodyTokens: string[];
}

const synth = (props: Partial<MsgbridgeStackProps> = {}): Synthesized => {
  // Templates only: the functions' code is not bundled (their bundles are tested apart).
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-observability', {
    gateway: TEST_GATEWAY,
    ...props,
  });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct): string => {
    const element = construct.node.defaultChild ?? construct;
    if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
    return stack.getLogicalId(element);
  };
  const resources = template.toJSON().Resources as Record<
    string,
    { Properties: Record<string, unknown> }
  >;
  const properties = (construct: IConstruct) => resources[id(construct)]?.Properties ?? {};
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const parts = body['Fn::Join'][1];
  return {
    stack,
    template,
    id,
    properties,
    bodyText: parts.filter((part) => typeof part === 'string').join(''),
    bodyTokens: parts
      .filter((part) => typeof part !== 'string')
      .map((part) => JSON.stringify(part)),
  };
};

const DASHBOARD_METRICS = [
  // Webhooks in
  'ReportsStored',
  'ReportsDuplicate',
  'InboundMessagesStored',
  'ItemsQuarantined',
  // Events out
  'EventsPublished',
  'PublishFailures',
  'PoisonRecords',
  'IteratorAge',
  // Sends
  'RecipientsAccepted',
  'RecipientsRejected',
  'RecipientsScheduled',
  'SendsRejectedInvalid',
  'SendRetries',
  'ApproximateNumberOfMessagesVisible',
  'ApproximateAgeOfOldestMessage',
  // Rate limit and quota
  'RateLimitWaitMilliseconds',
  'RateLimitWaits',
  'RateLimitWaitsExceeded',
  'QuotaRecipientsReserved',
  // Tokens and jobs
  'TokenMinutesLeft',
  'TokenRefreshFailures',
  'PollLagSeconds',
  'ReportsReconciled',
  'AttachmentsStored',
  'AttachmentsLost',
];

/** The front door's request metrics on the dashboard: the function URLs' (default) or the stage's. */
const FRONT_METRICS = {
  functionUrl: ['UrlRequestCount', 'Url4xxCount', 'Url5xxCount', 'UrlRequestLatency'],
  restApi: ['Count', '4XXError', '5XXError', 'Latency'],
} as const;

describe('observability', () => {
  const stacks = synthesizedBeforeAll(() => ({
    defaults: synth(),
    restApi: synth({ webhooks: { front: 'rest-api' } }),
    polling: synth({
      gateway: { ...TEST_GATEWAY, tpsQuota: 200 },
      reportDelivery: 'both',
      moPolling: true,
      metricsNamespace: 'acme/msgbridge',
      alarmTopicArn: ALARM_TOPIC,
      rateAlarms: {
        webhook5xxRateThreshold: 0.1,
        webhook4xxRateThreshold: 0.5,
        sendRejectionRateThreshold: 0.3,
      },
    }),
  }));

  describe('dashboard', () => {
    it('shows every metric of the flow, the requests of whichever front door is deployed', () => {
      for (const metricName of DASHBOARD_METRICS)
        expect(stacks.defaults.bodyText, metricName).toContain(`"${metricName}"`);
      for (const metricName of FRONT_METRICS.functionUrl) {
        expect(stacks.defaults.bodyText, metricName).toContain(`"AWS/Lambda","${metricName}"`);
        expect(stacks.restApi.bodyText, metricName).not.toContain(`"${metricName}"`);
      }
      for (const metricName of FRONT_METRICS.restApi) {
        expect(stacks.restApi.bodyText, metricName).toContain(`"AWS/ApiGateway","${metricName}"`);
        expect(stacks.defaults.bodyText, metricName).not.toContain('"AWS/ApiGateway"');
      }
    });

    it('reads the functions’ metrics from the configured namespace, per service', () => {
      expect(stacks.defaults.bodyText).toContain(
        '["msgbridge","RecipientsRejected","service","send-messages"',
      );
      expect(stacks.polling.bodyText).toContain(
        '["acme/msgbridge","RecipientsRejected","service","send-messages"',
      );
      expect(stacks.polling.bodyText).not.toContain('["msgbridge",');
      // The poller's stored counts appear only when it runs.
      expect(stacks.defaults.bodyText).not.toContain('"ReportsStored","service","poll-reports"');
      expect(stacks.polling.bodyText).toContain('"ReportsStored","service","poll-reports"');
    });

    it('watches the send queue, its DLQ and the publisher’s stream by their resources', () => {
      const { stack, bodyTokens, id } = stacks.defaults;
      for (const queue of [stack.sendPipeline.queue, stack.sendPipeline.deadLetterQueue])
        expect(bodyTokens).toContain(JSON.stringify({ 'Fn::GetAtt': [id(queue), 'QueueName'] }));
      expect(bodyTokens).toContain(JSON.stringify({ Ref: id(stack.eventPublisher.publishEvents) }));
    });

    it('shows each send request’s rate-limit wait as p50, p99 and maximum, and how many waited', () => {
      const sendMetric = (metricName: string) =>
        `["acme/msgbridge","${metricName}","service","send-messages"`;
      for (const [label, stat] of [
        ['p50', 'p50'],
        ['p99', 'p99'],
        ['maximum', 'Maximum'],
      ])
        expect(stacks.polling.bodyText).toContain(
          `${sendMetric('RateLimitWaitMilliseconds')},{"label":"${label}","stat":"${stat}"}]`,
        );
      for (const metricName of ['RateLimitWaits', 'RateLimitWaitsExceeded'])
        expect(stacks.polling.bodyText).toContain(
          `${sendMetric(metricName)},{"label":"${metricName} (send-messages)","stat":"Sum"}]`,
        );
    });

    it('shows quota use as recipients per second against the configured TPS quota, and as a share', () => {
      const reserved = (namespace: string) =>
        `["${namespace}","QuotaRecipientsReserved","service","send-messages",{"id":"reserved","visible":false,"period":60,"stat":"Sum"}]`;
      const perSecond = '"expression":"FILL(reserved, 0) / PERIOD(reserved)","period":60}';
      for (const [s, namespace, quota] of [
        [stacks.defaults, 'msgbridge', 50],
        [stacks.polling, 'acme/msgbridge', 200],
      ] as const) {
        expect(s.bodyText).toContain(`${perSecond}],${reserved(namespace)}]`);
        expect(s.bodyText).toContain(
          `"annotations":{"horizontal":[{"value":${quota},"label":"TPS quota (${quota}/s)","yAxis":"left"}]}`,
        );
        expect(s.bodyText).toContain(
          `"expression":"100 * FILL(reserved, 0) / (${quota} * PERIOD(reserved))","period":60}],${reserved(namespace)}]`,
        );
      }
    });

    it('lists every alarm of the stack in the alarm status widget', () => {
      for (const s of [stacks.defaults, stacks.polling]) {
        const alarmIds = Object.keys(s.template.findResources('AWS::CloudWatch::Alarm'));
        expect(alarmIds.length).toBeGreaterThan(15);
        for (const alarmId of alarmIds)
          expect(s.bodyTokens).toContain(JSON.stringify({ 'Fn::GetAtt': [alarmId, 'Arn'] }));
      }
      expect(alarmCount(stacks.polling)).toBeGreaterThan(alarmCount(stacks.defaults));
    });
  });

  describe('metric names', () => {
    /** Every metric of the functions' namespace an alarm or the dashboard reads, with its dimensions. */
    const referenced = (synthesized: Synthesized, namespace: string) => {
      type MetricRef = {
        Namespace?: string;
        MetricName?: string;
        Dimensions?: Array<{ Name: string }>;
      };
      const alarms = Object.values(
        synthesized.template.findResources('AWS::CloudWatch::Alarm'),
      ) as Array<{
        Properties: MetricRef & { Metrics?: Array<{ MetricStat?: { Metric: MetricRef } }> };
      }>;
      const fromAlarms = alarms.flatMap(({ Properties: alarm }) => [
        alarm,
        ...(alarm.Metrics ?? []).flatMap((each) =>
          each.MetricStat ? [each.MetricStat.Metric] : [],
        ),
      ]);
      const own = fromAlarms.filter((metric) => metric.Namespace === namespace);
      const prefix = JSON.stringify([namespace]).slice(0, -1);
      const fromDashboard = [
        ...synthesized.bodyText.matchAll(
          new RegExp(`${literally(prefix)},"(\\w+)"(?:,"(\\w+)")?`, 'g'),
        ),
      ].map(([, metricName, dimension]) => ({ metricName, dimension }));
      return {
        names: new Set([
          ...own.map((metric) => metric.MetricName),
          ...fromDashboard.map((each) => each.metricName),
        ]),
        dimensions: new Set([
          ...own.flatMap((metric) => (metric.Dimensions ?? []).map((d) => d.Name)),
          ...fromDashboard.map((each) => each.dimension),
        ]),
      };
    };

    it('alarms and the dashboard read only metrics the functions emit, by the service dimension', () => {
      const documented = documentedMetrics();
      const { names, dimensions } = referenced(stacks.polling, 'acme/msgbridge');
      // Prepare-check: the scan saw the alarms' and the dashboard's metrics.
      expect([...names]).toEqual(
        expect.arrayContaining([
          'MoPolls',
          'NotQueried',
          'AttachmentsLost',
          'QuotaRecipientsReserved',
        ]),
      );
      for (const name of names) expect([...documented.keys()], String(name)).toContain(name);
      expect([...dimensions]).toEqual(['service']);
    });
  });

  describe('rate alarms', () => {
    it('alarms on the webhook stage’s 5XX share over five minutes (REST API front)', () => {
      const { stack, properties, id } = stacks.restApi;
      expect(properties(stack.rateAlarms.webhook5xxRate)).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Average',
        Period: 300,
        Dimensions: expect.arrayContaining([
          { Name: 'ApiName', Value: expect.anything() },
          { Name: 'Stage', Value: { Ref: id(stack.webhookApi.api.deploymentStage) } },
        ]),
        Threshold: 0.05,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('alarms on a 4XX share sustained for three fifteen-minute periods (REST API front)', () => {
      const { stack, properties } = stacks.restApi;
      expect(properties(stack.rateAlarms.webhook4xxRate)).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '4XXError',
        Statistic: 'Average',
        Period: 900,
        Threshold: 0.25,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        TreatMissingData: 'notBreaching',
      });
    });

    it('alarms on the share of recipients the gateway rejected over fifteen minutes', () => {
      const { stack, properties } = stacks.polling;
      const alarm = properties(stack.rateAlarms.sendRejectionRate) as {
        Metrics: {
          Id: string;
          Expression?: string;
          ReturnData?: boolean;
          MetricStat?: { Metric: Record<string, unknown>; Period: number; Stat: string };
        }[];
      };
      expect(alarm).toMatchObject({
        Threshold: 0.3,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      const expression = alarm.Metrics.find((each) => each.Expression);
      expect(expression?.Expression).toBe('rejected / (accepted + rejected)');
      const stats = Object.fromEntries(
        alarm.Metrics.flatMap((each) => (each.MetricStat ? [[each.Id, each.MetricStat]] : [])),
      );
      for (const [key, metricName] of [
        ['accepted', 'RecipientsAccepted'],
        ['rejected', 'RecipientsRejected'],
      ])
        expect(stats[key as string]).toEqual({
          Metric: {
            Namespace: 'acme/msgbridge',
            MetricName: metricName,
            Dimensions: [{ Name: 'service', Value: 'send-messages' }],
          },
          Period: 900,
          Stat: 'Sum',
        });
    });

    it('takes the thresholds from props and notifies the alarm topic only when one is given', () => {
      const { polling, defaults } = stacks;
      expect(polling.properties(polling.stack.rateAlarms.webhook5xxRate).Threshold).toBe(0.1);
      expect(polling.properties(polling.stack.rateAlarms.webhook4xxRate).Threshold).toBe(0.5);
      for (const alarm of polling.stack.rateAlarms.alarms) {
        expect(polling.properties(alarm).AlarmActions).toEqual([ALARM_TOPIC]);
        expect(polling.properties(alarm).OKActions).toEqual([ALARM_TOPIC]);
      }
      for (const alarm of defaults.stack.rateAlarms.alarms)
        expect(defaults.properties(alarm).AlarmActions).toBeUndefined();
    });

    it('rejects thresholds that are not fractions, naming each', () => {
      const build = () =>
        new MsgbridgeStack(new App(), 'bad', {
          gateway: TEST_GATEWAY,
          rateAlarms: { webhook5xxRateThreshold: 0, sendRejectionRateThreshold: 20 },
        });
      expect(build).toThrow(InvalidPropsError);
      expect(build).toThrow(/rateAlarms\.webhook5xxRateThreshold must be a fraction/);
      expect(build).toThrow(/rateAlarms\.sendRejectionRateThreshold must be a fraction/);
    });
  });

  it('passes the cdk-nag AwsSolutions checks with the dashboard and the rate alarms', () => {
    const app = new App();
    new MsgbridgeStack(app, 'msgbridge-observability-nag', {
      gateway: TEST_GATEWAY,
      alarmTopicArn: ALARM_TOPIC,
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(app.synth().stacks).toHaveLength(1);
  });
});

/** The number of alarms in a synthesized stack. */
const alarmCount = (synthesized: Synthesized): number =>
  Object.keys(synthesized.template.findResources('AWS::CloudWatch::Alarm')).length;

/** `text` as a regular expression that matches it literally. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
