import { readFileSync } from 'node:fs';
import { App, Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import {
  appSettingsFromContext,
  CONTEXT_KEY,
  stackPropsFromContext,
} from '../../lib/context-props.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';

const GATEWAY = {
  hosts: {
    api: 'https://api.gateway.example',
    send: 'https://send.gateway.example',
    mnt: 'https://mnt.gateway.example',
  },
  tpsQuota: 50,
};

const problemsOf = (value: unknown): readonly string[] => {
  try {
    stackPropsFromContext(value);
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  throw new Error('expected the context to be refused');
};

describe('stackPropsFromContext', () => {
  it('reads the shipped cdk.json context', () => {
    // Prepare
    const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8'));

    // Act
    const props = stackPropsFromContext(cdkJson.context[CONTEXT_KEY]);

    // Assess
    expect(props.gateway.tpsQuota).toBe(10);
    expect(props.egress).toEqual({ mode: 'nat', natGateways: 1, maxAzs: 2 });
  });

  it('turns the JSON-friendly seconds and days into the typed props', () => {
    // Act
    const props = stackPropsFromContext({
      gateway: GATEWAY,
      sending: { functionTimeoutSeconds: 90, maxBatchingWindowSeconds: 2, batchSize: 10 },
      webhooks: {
        throttlingRateLimit: 50,
        throttlingBurstLimit: 80,
        allowedSourceCidrs: ['203.0.113.0/24'],
        accessLogRetentionDays: 90,
        eventRetentionDays: 40,
      },
      publisher: { maxRecordAgeSeconds: 3600, archiveRetentionDays: 90 },
      rateAlarms: { webhook5xxRateThreshold: 0.02 },
      alarms: { topicArn: 'arn:aws:sns:ap-northeast-2:123456789012:ops' },
      eventSource: 'acme.msgbridge',
      metricsNamespace: 'acme-msgbridge',
      webhookSecret: { length: 48 },
    });

    // Assess
    expect(props.sending?.functionTimeout?.toSeconds()).toBe(90);
    expect(props.sending?.maxBatchingWindow?.toSeconds()).toBe(2);
    expect(props.sending).not.toHaveProperty('functionTimeoutSeconds');
    expect(props.webhooks).toEqual({
      throttlingRateLimit: 50,
      throttlingBurstLimit: 80,
      allowedSourceCidrs: ['203.0.113.0/24'],
      accessLogRetention: RetentionDays.THREE_MONTHS,
      eventRetentionDays: 40,
    });
    expect(props.publisher?.maxRecordAge?.toSeconds()).toBe(Duration.hours(1).toSeconds());
    expect(props.publisher?.archiveRetentionDays).toBe(90);
    expect(props.rateAlarms).toEqual({ webhook5xxRateThreshold: 0.02 });
    expect(props.alarmTopicArn).toBe('arn:aws:sns:ap-northeast-2:123456789012:ops');
    expect(props.eventSource).toBe('acme.msgbridge');
    expect(props.metricsNamespace).toBe('acme-msgbridge');
    expect(props.webhookSecret).toEqual({ length: 48 });
  });

  it('reads the statistics export, whose names and values the construct checks', () => {
    // Act
    const props = stackPropsFromContext({
      gateway: GATEWAY,
      statisticsExport: {
        messengerChannels: ['@acme'],
        messengerStatistics: ['channelNoticeRead'],
        s3Export: true,
        schedule: 'cron(0 2 * * ? *)',
      },
    });

    // Assess
    expect(props.statisticsExport).toEqual({
      messengerChannels: ['@acme'],
      messengerStatistics: ['channelNoticeRead'],
      s3Export: true,
      schedule: 'cron(0 2 * * ? *)',
    });
    expect(problemsOf({ gateway: GATEWAY, statisticsExport: { s3export: true } })).toEqual([
      expect.stringMatching(/msgbridge\.statisticsExport: Unrecognized key.*s3export/),
    ]);
  });

  it('reads the alarm e-mail addresses and an existing data key', () => {
    // Act
    const props = stackPropsFromContext({
      gateway: GATEWAY,
      alarms: { emails: ['ops@example.com', 'oncall@example.com'] },
      encryption: {
        keyArn: 'arn:aws:kms:ap-northeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      },
    });

    // Assess
    expect(props.alarmEmails).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(props).not.toHaveProperty('alarmTopicArn');
    expect(props.encryption?.keyArn).toMatch(/:key\/1234abcd/);
  });

  it('leaves absent settings absent, so the constructs apply their defaults', () => {
    // Act
    const props = stackPropsFromContext({ gateway: GATEWAY, webhooks: {}, publisher: {} });

    // Assess
    expect(props.webhooks).toEqual({});
    expect(props.publisher).toEqual({});
    expect(props).not.toHaveProperty('alarmTopicArn');
  });

  it('accepts the context as a JSON string, as --context gives it', () => {
    // Act
    const props = stackPropsFromContext(JSON.stringify({ gateway: GATEWAY, moPolling: true }));

    // Assess
    expect(props.moPolling).toBe(true);
  });

  it('lists every problem at once, each by its path', () => {
    // Act
    const problems = problemsOf({
      gateway: { hosts: GATEWAY.hosts },
      webhooks: { accessLogRetentionDays: 45, throttlingRate: 10 },
      publisher: { maxRecordAge: 60 },
      alarms: { topicArn: 7 },
      reportDelivery: 'carrier-pigeon',
    });

    // Assess
    expect(problems).toHaveLength(6);
    expect(problems.join('\n')).toMatch(/msgbridge\.gateway\.tpsQuota/);
    expect(problems.join('\n')).toMatch(
      /msgbridge\.webhooks\.accessLogRetentionDays: must be one of the CloudWatch Logs retention periods: .*\b30\b.*\b60\b/,
    );
    expect(problems.join('\n')).toMatch(/msgbridge\.webhooks: Unrecognized key.*throttlingRate/);
    expect(problems.join('\n')).toMatch(/msgbridge\.publisher: Unrecognized key.*maxRecordAge/);
    expect(problems.join('\n')).toMatch(/msgbridge\.alarms\.topicArn/);
    expect(problems.join('\n')).toMatch(/msgbridge\.reportDelivery/);
  });

  it('reads the webhook firewall, absent unless set, and refuses a misspelt field in it', () => {
    // Act
    const on = stackPropsFromContext({
      gateway: GATEWAY,
      webhooks: { firewall: { rateLimitPerSource: 600 } },
    });
    const defaults = stackPropsFromContext({ gateway: GATEWAY, webhooks: { firewall: {} } });
    const off = stackPropsFromContext({ gateway: GATEWAY, webhooks: {} });
    const problems = problemsOf({
      gateway: GATEWAY,
      webhooks: { firewall: { ratePerSource: 600, rateLimitPerSource: 'many' } },
    });

    // Assess
    expect(on.webhooks?.firewall).toEqual({ rateLimitPerSource: 600 });
    expect(defaults.webhooks?.firewall).toEqual({});
    expect(off.webhooks).not.toHaveProperty('firewall');
    expect(problems.join('\n')).toMatch(
      /msgbridge\.webhooks\.firewall: Unrecognized key.*ratePerSource/,
    );
    expect(problems.join('\n')).toMatch(/msgbridge\.webhooks\.firewall\.rateLimitPerSource/);
  });

  it('reads every prop the interfaces declare, the attachments’ content hosts among them', () => {
    // Act
    const props = stackPropsFromContext({
      gateway: GATEWAY,
      attachments: { contentHosts: ['media.example.com'], expireAfterDays: 90 },
      observability: { applicationLogLevel: 'DEBUG', tracing: 'active' },
    });

    // Assess
    expect(props.attachments).toEqual({ contentHosts: ['media.example.com'], expireAfterDays: 90 });
    expect(props.observability).toEqual({ applicationLogLevel: 'DEBUG', tracing: 'active' });
  });

  it('refuses a value that is none of those a prop allows, naming them', () => {
    expect(
      problemsOf({ gateway: GATEWAY, observability: { applicationLogLevel: 'WARN' } }),
    ).toEqual([
      expect.stringMatching(
        /^msgbridge\.observability\.applicationLogLevel: .*"TRACE".*"DEBUG".*"INFO"/,
      ),
    ]);
  });

  it('explains a missing context and a string that is not JSON', () => {
    expect(problemsOf(undefined)).toEqual([expect.stringMatching(/is missing: add .*gateway/)]);
    expect(problemsOf('{gateway')).toEqual(['is a string that is not JSON']);
  });
});

describe('appSettingsFromContext', () => {
  const contextOf =
    (values: Record<string, unknown>) =>
    (key: string): unknown =>
      values[key];
  const appProblemsOf = (values: Record<string, unknown>): readonly string[] => {
    try {
      appSettingsFromContext(contextOf(values));
    } catch (error) {
      if (error instanceof InvalidPropsError) return error.problems;
      throw error;
    }
    throw new Error('expected the context to be refused');
  };

  it('deploys the stack msgbridge, environment-agnostic, unless the context says otherwise', () => {
    // Act
    const settings = appSettingsFromContext(contextOf({ [CONTEXT_KEY]: { gateway: GATEWAY } }));

    // Assess
    expect(settings.stackName).toBe('msgbridge');
    expect(settings.env).toBeUndefined();
    expect(settings.props.gateway).toEqual(GATEWAY);
  });

  it('takes the stack name, the account and the region from their own context keys', () => {
    // Act
    const settings = appSettingsFromContext(
      contextOf({
        [CONTEXT_KEY]: { gateway: GATEWAY },
        stackName: 'msgbridge-staging',
        account: '123456789012',
        region: 'ap-northeast-2',
      }),
    );

    // Assess
    expect(settings.stackName).toBe('msgbridge-staging');
    expect(settings.env).toEqual({ account: '123456789012', region: 'ap-northeast-2' });
  });

  it('takes a region alone', () => {
    expect(
      appSettingsFromContext(
        contextOf({ [CONTEXT_KEY]: { gateway: GATEWAY }, region: 'us-east-1' }),
      ).env,
    ).toEqual({ region: 'us-east-1' });
  });

  it('names every problem of the app keys and the msgbridge settings in one error', () => {
    // Act
    const problems = appProblemsOf({
      [CONTEXT_KEY]: { gateway: { ...GATEWAY, tpsQuota: 5 }, moPolling: 'yes' },
      stackName: '1-msgbridge',
      account: '12345',
      region: 'Seoul',
    });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(/^stackName must be a CloudFormation stack name .*got "1-msgbridge"$/),
      'account must be a 12-digit AWS account id, got "12345"',
      'region must be an AWS region such as ap-northeast-2, got "Seoul"',
      expect.stringMatching(/^context "msgbridge": msgbridge\.moPolling: /),
    ]);
  });

  it('refuses the cdk.json context with a misspelt and a mistyped setting, each by its path', () => {
    // Prepare
    const { context } = JSON.parse(readFileSync('cdk.json', 'utf8'));
    const app = new App({
      context: {
        ...context,
        [CONTEXT_KEY]: {
          ...context[CONTEXT_KEY],
          sending: { maxConcurency: 4 },
          webhooks: { throttlingRateLimit: '100' },
        },
      },
    });

    // Act
    let refusal: unknown;
    try {
      appSettingsFromContext((key) => app.node.tryGetContext(key));
    } catch (error) {
      refusal = error;
    }

    // Assess
    expect(refusal).toBeInstanceOf(InvalidPropsError);
    expect((refusal as InvalidPropsError).problems).toEqual([
      'context "msgbridge": msgbridge.sending: Unrecognized key: "maxConcurency"',
      expect.stringMatching(
        /^context "msgbridge": msgbridge\.webhooks\.throttlingRateLimit: .*expected number, received string$/,
      ),
    ]);
  });

  it('checks the values of the msgbridge settings with the rest', () => {
    // Act
    const problems = appProblemsOf({
      [CONTEXT_KEY]: { gateway: { ...GATEWAY, tpsQuota: 5 } },
      stackName: 'msgbridge_prod',
    });

    // Assess
    expect(problems).toEqual([
      expect.stringMatching(/^stackName must be /),
      'msgbridge.gateway.tpsQuota must be an integer from 10 to 100000, got 5',
    ]);
  });
});
