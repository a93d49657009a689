/**
 * The function-URL webhook front door (`webhooks.front: 'function-url'`, the default): each
 * receiver gets a public function URL instead of the REST API (and reserved concurrency where the
 * stated account quota allows it), the
 * receivers get the source allowlist and the body limit, the URL outputs point at the function
 * URLs, and the props of API Gateway are refused in one error. The REST API stays an option.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { logicalId, stackProblems } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const GATEWAY_RANGES = ['198.51.100.16/28', '2001:db8:10::/48'];

/** Synthesized with the AwsSolutions checks: synthesis throws on any unacknowledged finding. */
const synth = (props: Omit<MsgbridgeStackProps, 'gateway'>, name: string) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, name, { gateway: TEST_GATEWAY, ...props });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  return { stack, template: Template.fromStack(stack) };
};

type Resource = { Properties: Record<string, unknown> };

const environmentOf = (template: Template, functionId: string): Record<string, unknown> => {
  const fn = template.findResources('AWS::Lambda::Function')[functionId] as Resource | undefined;
  if (!fn) throw new Error(`no function ${functionId}`);
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
};

describe('the function-URL front door', () => {
  let stack: MsgbridgeStack;
  let template: Template;
  let receivers: { reports: string; inbound: string };

  beforeAll(() => {
    ({ stack, template } = synth(
      {
        webhooks: {
          front: 'function-url',
          allowedSourceCidrs: GATEWAY_RANGES,
          eventRetentionDays: 40,
        },
      },
      'msgbridge-function-url',
    ));
    receivers = {
      reports: logicalId(stack, stack.webhookApi.receiveReports),
      inbound: logicalId(stack, stack.webhookApi.receiveInbound),
    };
  }, 300_000);

  it('synthesizes with no cdk-nag finding and deploys no API Gateway or WAF resource', () => {
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    const types = Object.values(template.toJSON().Resources as Record<string, { Type: string }>);
    expect(types.filter(({ Type }) => Type.startsWith('AWS::ApiGateway::'))).toEqual([]);
    expect(types.filter(({ Type }) => Type.startsWith('AWS::WAFv2::'))).toEqual([]);
    expect(stack.webhookApi.restApi).toBeUndefined();
    expect(() => stack.webhookApi.api).toThrow(/function-url/);
  });

  it('gives each receiver a public function URL (AuthType NONE) and no other', () => {
    const urls = Object.values(template.findResources('AWS::Lambda::Url')) as Resource[];
    expect(urls.map((url) => url.Properties)).toEqual([
      expect.objectContaining({
        AuthType: 'NONE',
        TargetFunctionArn: { 'Fn::GetAtt': [receivers.reports, 'Arn'] },
      }),
      expect.objectContaining({
        AuthType: 'NONE',
        TargetFunctionArn: { 'Fn::GetAtt': [receivers.inbound, 'Arn'] },
      }),
    ]);
    // Public invocation through the URL only: the permission is bound to the NONE auth type.
    // Since October 2025 a new function URL also needs lambda:InvokeFunction, which is bound to
    // invocations through the URL, so the function cannot be invoked directly by anyone.
    for (const id of Object.values(receivers)) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunctionUrl',
        Principal: '*',
        FunctionUrlAuthType: 'NONE',
        FunctionName: { 'Fn::GetAtt': [id, 'Arn'] },
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: '*',
        InvokedViaFunctionUrl: true,
        FunctionName: { 'Fn::GetAtt': [id, 'Arn'] },
      });
    }
  });

  it('reserves no concurrency unless the account quota is stated: a new account can deploy it', () => {
    for (const id of Object.values(receivers))
      expect(template.toJSON().Resources[id].Properties).not.toHaveProperty(
        'ReservedConcurrentExecutions',
      );
  });

  it('hands the receivers the allowlist and the body limit, nothing to any other function', () => {
    for (const id of Object.values(receivers))
      expect(environmentOf(template, id)).toMatchObject({
        ALLOWED_SOURCE_CIDRS: GATEWAY_RANGES.join(','),
        MAX_BODY_BYTES: '6291456',
        EVENT_RETENTION_DAYS: '40',
      });
    const others = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([id]) => !Object.values(receivers).includes(id),
    );
    expect(others.length).toBeGreaterThan(0);
    for (const [, fn] of others)
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toMatch(
        /ALLOWED_SOURCE_CIDRS|MAX_BODY_BYTES/,
      );
  });

  it('outputs the webhook URLs on the function URLs, with the same path shape', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [reports, inbound] = stack.webhookApi.functionUrls ?? [];
    const urlOf = (url: typeof reports) => ({
      'Fn::GetAtt': [logicalId(stack, url), 'FunctionUrl'],
    });
    expect(outputs.ReportWebhookUrl?.Value).toEqual({
      'Fn::Join': ['', [urlOf(reports), 'webhooks/<secret>/report']],
    });
    expect(outputs.InboundWebhookUrl?.Value).toEqual({
      'Fn::Join': ['', [urlOf(inbound), 'webhooks/<secret>/mo']],
    });
    expect(Object.keys(outputs)).not.toContain('WebhookStageUrl');
  });

  it('alarms on the function URLs’ 5XX and 4XX shares instead of a stage’s', () => {
    const alarm = (name: RegExp) =>
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((resource) =>
        name.test(JSON.stringify(resource.Properties.AlarmDescription)),
      );
    const fiveXx = JSON.stringify(alarm(/answered 5XX/));
    const fourXx = JSON.stringify(alarm(/answered 4XX/));
    for (const [json, metric] of [
      [fiveXx, 'Url5xxCount'],
      [fourXx, 'Url4xxCount'],
    ] as const) {
      expect(json).toContain(`"MetricName":"${metric}"`);
      expect(json).toContain('"MetricName":"UrlRequestCount"');
      expect(json).toContain('/ (urlrequestcount_reports + urlrequestcount_inbound)');
      expect(json).not.toContain('AWS/ApiGateway');
    }
  });
});

describe('function-URL settings', () => {
  it('takes the front from the context, and a receiver concurrency and body limit of its own', () => {
    const props = stackPropsFromContext({
      gateway: TEST_GATEWAY,
      webhooks: {
        front: 'function-url',
        receiverConcurrency: 25,
        accountConcurrency: 1_000,
        maxBodyBytes: 262_144,
      },
    });
    const { stack, template } = synth(props, 'msgbridge-function-url-settings');

    template.resourceCountIs('AWS::Lambda::Url', 2);
    for (const fn of [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound]) {
      const id = logicalId(stack, fn);
      expect(template.toJSON().Resources[id].Properties.ReservedConcurrentExecutions).toBe(25);
      expect(environmentOf(template, id)).toMatchObject({ MAX_BODY_BYTES: '262144' });
      // No allowlist configured: every source (`*`), the path secret authenticates.
      expect(environmentOf(template, id)).toMatchObject({ ALLOWED_SOURCE_CIDRS: '*' });
    }
  }, 300_000);

  it('refuses every API Gateway prop with the function-URL front, in one error', () => {
    const problems = stackProblems({
      webhooks: {
        front: 'function-url',
        firewall: {},
        throttlingRateLimit: 50,
        throttlingBurstLimit: 100,
        stageName: 'prod',
        accessLogRetention: RetentionDays.ONE_MONTH,
        stageTracing: true,
        cloudWatchRole: false,
        receiverConcurrency: 0,
        maxBodyBytes: 7_000_000,
        allowedSourceCidrs: ['198.51.100.0/33'],
      },
    });

    expect(problems).toEqual([
      expect.stringMatching(/^webhooks\.firewall cannot apply with front "function-url".*WAF/),
      expect.stringMatching(/^webhooks\.throttlingRateLimit cannot apply.*receiverConcurrency/),
      expect.stringMatching(/^webhooks\.throttlingBurstLimit cannot apply/),
      expect.stringMatching(/^webhooks\.stageName cannot apply/),
      expect.stringMatching(/^webhooks\.accessLogRetention cannot apply/),
      expect.stringMatching(/^webhooks\.stageTracing cannot apply/),
      expect.stringMatching(/^webhooks\.cloudWatchRole cannot apply/),
      'webhooks.receiverConcurrency must be an integer from 1 to 1000, got 0',
      'webhooks.maxBodyBytes must be an integer from 1024 to 6291456, got 7000000',
      'webhooks.allowedSourceCidrs: "198.51.100.0/33" is not an IPv4 or IPv6 CIDR block',
    ]);
  });

  it('reserves 10 per receiver where the stated quota leaves 100 unreserved above them, none below', () => {
    const reservedWith = (accountConcurrency: number) => {
      const app = new App();
      const stack = new MsgbridgeStack(app, `msgbridge-quota-${accountConcurrency}`, {
        gateway: TEST_GATEWAY,
        webhooks: { accountConcurrency },
      });
      const resources = Template.fromStack(stack).toJSON().Resources;
      return [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound].map(
        (fn) => resources[logicalId(stack, fn)].Properties.ReservedConcurrentExecutions,
      );
    };
    expect(reservedWith(1_000)).toEqual([10, 10]);
    expect(reservedWith(120)).toEqual([10, 10]);
    expect(reservedWith(119)).toEqual([undefined, undefined]);
    expect(reservedWith(50)).toEqual([undefined, undefined]);
  }, 300_000);

  it('refuses a reservation without the quota, or one the quota cannot give', () => {
    expect(stackProblems({ webhooks: { receiverConcurrency: 10 } })).toEqual([
      expect.stringMatching(
        /^webhooks\.receiverConcurrency reserves 20 executions .*below 120 .*state the quota as webhooks\.accountConcurrency/,
      ),
    ]);
    expect(
      stackProblems({ webhooks: { receiverConcurrency: 30, accountConcurrency: 150 } }),
    ).toEqual([
      'webhooks.receiverConcurrency reserves 60 executions (both receivers), but an account quota of 150 leaves Lambda fewer than the 100 unreserved executions it keeps: lower receiverConcurrency to at most 25 or raise the quota',
    ]);
    expect(stackProblems({ webhooks: { accountConcurrency: 5 } })).toEqual([
      'webhooks.accountConcurrency must be an integer from 10 to 1000000, got 5',
    ]);
  });

  it('refuses an unknown front, and still lists the other problems', () => {
    const problems = stackProblems({
      webhooks: { front: 'http-api' as 'rest-api', storeConcurrency: 0 },
    });

    expect(problems).toEqual([
      'webhooks.front must be "rest-api" or "function-url", got "http-api"',
      'webhooks.storeConcurrency must be an integer from 1 to 100, got 0',
    ]);
  });

  it('names the default front when it refuses an API Gateway prop that was set without a front', () => {
    const problems = stackProblems({ webhooks: { throttlingRateLimit: 50 } });

    expect(problems).toEqual([
      'webhooks.throttlingRateLimit cannot apply with front "function-url" (the default): it configures stage throttling (use receiverConcurrency); leave it out or set front "rest-api"',
    ]);
  });

  /** Both receivers: no reserved concurrency, Lambda's 6 MB payload limit, every source. */
  const expectUnreservedReceiversWithBodyLimit = (stack: MsgbridgeStack, template: Template) => {
    for (const fn of [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound]) {
      const id = logicalId(stack, fn);
      expect(template.toJSON().Resources[id].Properties).not.toHaveProperty(
        'ReservedConcurrentExecutions',
      );
      expect(environmentOf(template, id)).toMatchObject({
        MAX_BODY_BYTES: '6291456',
        ALLOWED_SOURCE_CIDRS: '*',
      });
    }
  };

  it('deploys function URLs by default, with no API Gateway, unreserved receivers and their body limit', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new MsgbridgeStack(app, 'msgbridge-front-default', { gateway: TEST_GATEWAY });
    const template = Template.fromStack(stack);

    expect(stack.webhookApi.front).toBe('function-url');
    expect(stack.webhookApi.restApi).toBeUndefined();
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    template.resourceCountIs('AWS::Lambda::Url', 2);
    expectUnreservedReceiversWithBodyLimit(stack, template);
    expect(Object.keys(template.toJSON().Outputs)).not.toContain('WebhookStageUrl');
  }, 300_000);

  it('keeps the REST API as an option, with unreserved receivers set to every source and Lambda’s payload limit', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new MsgbridgeStack(app, 'msgbridge-rest-api', {
      gateway: TEST_GATEWAY,
      webhooks: { front: 'rest-api' },
    });
    const template = Template.fromStack(stack);

    expect(stack.webhookApi.front).toBe('rest-api');
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::Lambda::Url', 0);
    // Every variable the receivers read is set whatever the front (the template rules check
    // it); the REST API's resource policy and its 10 MB limit act before either is read.
    expectUnreservedReceiversWithBodyLimit(stack, template);
    expect(Object.keys(template.toJSON().Outputs)).toContain('WebhookStageUrl');
  }, 300_000);
});
