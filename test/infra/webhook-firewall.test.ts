/**
 * The optional web ACL in front of the webhook stage of the REST API front (`webhooks.front:
 * 'rest-api'`, `webhooks.firewall`): off by default; on, a flood from one source is blocked by AWS
 * WAF before it reaches the stage throttle the gateway's deliveries share — by a per-source rate
 * rule, or, when the gateway's ranges are known, by allowing only them.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

/** A stack with the REST API front: the web ACL is associated with its stage. */
const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}, name = 'msgbridge-firewall') => {
  const stack = new MsgbridgeStack(new App(), name, {
    gateway: TEST_GATEWAY,
    ...props,
    webhooks: { front: 'rest-api', ...props.webhooks },
  });
  return { stack, template: Template.fromStack(stack) };
};

const stageId = (template: Template): string => {
  const [id, ...others] = Object.keys(template.findResources('AWS::ApiGateway::Stage'));
  if (id === undefined || others.length > 0) throw new Error('expected one stage');
  return id;
};

const acknowledgedOnStage = (stack: MsgbridgeStack): string[] =>
  stack.webhookApi.api.deploymentStage.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
    .map((rule) => rule.replace(/^annotation::/i, ''));

describe('the webhook firewall', () => {
  it('is not deployed by default, and the missing web ACL is an acknowledged finding', () => {
    const { stack, template } = synth();

    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    expect(acknowledgedOnStage(stack)).toContain('AwsSolutions-APIG3');
  });

  it('blocks a source above its 5-minute rate and allows the rest, on the webhook stage', () => {
    // Act
    const { stack, template } = synth({ webhooks: { firewall: {} } });

    // Assess: the rate rule, per source address, blocking.
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        {
          Name: 'rate-per-source',
          Priority: 0,
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: { Limit: 3000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
          VisibilityConfig: Match.objectLike({
            CloudWatchMetricsEnabled: true,
            SampledRequestsEnabled: true,
          }),
        },
      ],
    });
    // Associated with the stage itself (a reference, so created after it).
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      ResourceArn: {
        'Fn::Join': ['', Match.arrayWith(['/stages/', { Ref: stageId(template) }])],
      },
      WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('firewall'), 'Arn'] },
    });
    // No WAF logging: its log would record the path, which holds the secret.
    template.resourceCountIs('AWS::WAFv2::LoggingConfiguration', 0);
    expect(acknowledgedOnStage(stack)).not.toContain('AwsSolutions-APIG3');
  });

  it('takes the rate from the context setting', () => {
    const { template } = synth({ webhooks: { firewall: { rateLimitPerSource: 600 } } });

    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: [
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 600 }) } }),
      ],
    });
  });

  it('allows only the gateway ranges, per address family, when they are known', () => {
    // Act
    const { template } = synth({
      webhooks: {
        firewall: {},
        allowedSourceCidrs: ['203.0.113.0/24', '198.51.100.7/32', '2001:db8::/32'],
      },
    });

    // Assess
    template.hasResourceProperties('AWS::WAFv2::IPSet', {
      Scope: 'REGIONAL',
      IPAddressVersion: 'IPV4',
      Addresses: ['203.0.113.0/24', '198.51.100.7/32'],
    });
    template.hasResourceProperties('AWS::WAFv2::IPSet', {
      IPAddressVersion: 'IPV6',
      Addresses: ['2001:db8::/32'],
    });
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      DefaultAction: { Block: {} },
      Rules: [
        Match.objectLike({
          Name: 'gateway-ranges',
          Action: { Allow: {} },
          Statement: {
            OrStatement: {
              Statements: [
                { IPSetReferenceStatement: { Arn: Match.anyValue() } },
                { IPSetReferenceStatement: { Arn: Match.anyValue() } },
              ],
            },
          },
        }),
      ],
    });
    // The resource policy stays as a second line, should the web ACL ever be detached.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Policy: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Sid: 'DenyOutsideAllowedSourceCidrs' })]),
      }),
    });
  });

  it('refuses a rate WAF cannot take and a /0 range, with the other problems', () => {
    expect(() =>
      synth({
        webhooks: { firewall: { rateLimitPerSource: 5 }, allowedSourceCidrs: ['0.0.0.0/0'] },
      }),
    ).toThrow(InvalidPropsError);
    expect(() => synth({ webhooks: { firewall: { rateLimitPerSource: 5 } } })).toThrow(
      /firewall\.rateLimitPerSource must be an integer from 10 to 2000000000, got 5/,
    );
    expect(() => synth({ webhooks: { firewall: {}, allowedSourceCidrs: ['0.0.0.0/0'] } })).toThrow(
      /"0\.0\.0\.0\/0" allows every address; AWS WAF IP sets refuse \/0/,
    );
  });

  it.each([
    ['without an allowlist', { front: 'rest-api', firewall: {} }],
    [
      'with an allowlist',
      { front: 'rest-api', firewall: {}, allowedSourceCidrs: ['203.0.113.0/24'] },
    ],
  ] as const)('passes the AwsSolutions checks %s', (_case, webhooks) => {
    const app = new App();
    new MsgbridgeStack(app, 'msgbridge-nag-firewall', { gateway: TEST_GATEWAY, webhooks });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    const assembly = app.synth();

    expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-firewall']);
  });
});
