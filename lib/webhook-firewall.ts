import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnIPSet, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { integerProblem } from './props-validation.ts';

/**
 * The optional AWS WAF web ACL in front of the webhook stage. It exists because the stage
 * throttle is shared: every request that reaches the stage, a wrong-secret one included, takes a
 * token from the same bucket as the gateway's real deliveries. A flood of wrong secrets would
 * therefore make the gateway's requests answer 429 (it retries, but reports and MO are delayed).
 * AWS WAF evaluates a request before API Gateway does anything else with it, so a request it
 * blocks never reaches the stage throttle or a receiver.
 */
export interface WebhookFirewallOptions {
  /**
   * Requests one source address may send in any 5-minute window before AWS WAF blocks it (403)
   * until its rate falls again. Used when no `allowedSourceCidrs` are set; with them, the gateway's
   * ranges are allowed and every other source is blocked outright, which leaves nothing to rate.
   * Keep it above what one gateway egress address sends at its peak.
   * @default 3000 (10 requests per second per source on average)
   */
  readonly rateLimitPerSource?: number;
}

export interface WebhookFirewallProps extends WebhookFirewallOptions {
  /** The stage the web ACL protects. */
  readonly stage: Stage;
  /** The gateway's egress ranges (`WebhookApiOptions.allowedSourceCidrs`), if known. */
  readonly allowedSourceCidrs?: readonly string[];
}

/** WAF evaluates rate-based rules over a trailing window of this many seconds. */
const RATE_WINDOW_SECONDS = 300;
const DEFAULT_RATE_LIMIT = 3_000;

/** The problems with `WebhookFirewallOptions` (and the CIDRs WAF is given), for one report. */
export const webhookFirewallProblems = (
  options: WebhookFirewallOptions,
  allowedSourceCidrs: readonly string[] = [],
): string[] => [
  // WAF's own bounds for a rate-based rule's limit.
  ...integerProblem('firewall.rateLimitPerSource', options.rateLimitPerSource, {
    min: 10,
    max: 2_000_000_000,
  }),
  ...allowedSourceCidrs
    .filter((cidr) => cidr.endsWith('/0'))
    .map((cidr) => `allowedSourceCidrs: "${cidr}" allows every address; AWS WAF IP sets refuse /0`),
];

/**
 * A regional web ACL associated with the webhook stage. Without an allowlist it blocks a source
 * address that sends more than `rateLimitPerSource` requests in 5 minutes; with one, it allows
 * the gateway's ranges and blocks everything else, so that neither a flood nor a scan from
 * elsewhere ever counts against the stage throttle. Each rule publishes CloudWatch metrics and
 * sampled requests (without logging: WAF logs would record the path, and with it the secret).
 */
export class WebhookFirewall extends Construct {
  public readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WebhookFirewallProps) {
    super(scope, id);
    const metric = (name: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${Stack.of(this).stackName}-webhooks-${name}`,
    });
    const cidrs = props.allowedSourceCidrs ?? [];
    const rules: CfnWebACL.RuleProperty[] =
      cidrs.length > 0
        ? [this.allowRule(cidrs, metric('gateway-ranges'))]
        : [
            {
              name: 'rate-per-source',
              priority: 0,
              action: { block: {} },
              statement: {
                rateBasedStatement: {
                  limit: props.rateLimitPerSource ?? DEFAULT_RATE_LIMIT,
                  aggregateKeyType: 'IP',
                  evaluationWindowSec: RATE_WINDOW_SECONDS,
                },
              },
              visibilityConfig: metric('rate-per-source'),
            },
          ];
    this.webAcl = new CfnWebACL(this, 'web-acl', {
      scope: 'REGIONAL',
      description: 'msgbridge webhooks: keeps floods from other sources off the stage throttle',
      defaultAction: cidrs.length > 0 ? { block: {} } : { allow: {} },
      rules,
      visibilityConfig: metric('web-acl'),
    });
    // The stage ARN refers to the stage resource, so CloudFormation associates after creating it.
    new CfnWebACLAssociation(this, 'association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }

  /** Allows the gateway's ranges: one IP set per address family, as WAF requires. */
  private allowRule(
    cidrs: readonly string[],
    visibilityConfig: CfnWebACL.VisibilityConfigProperty,
  ): CfnWebACL.RuleProperty {
    const families = [
      { version: 'IPV4', addresses: cidrs.filter((cidr) => !cidr.includes(':')) },
      { version: 'IPV6', addresses: cidrs.filter((cidr) => cidr.includes(':')) },
    ].filter((family) => family.addresses.length > 0);
    const statements: CfnWebACL.StatementProperty[] = families.map(({ version, addresses }) => ({
      ipSetReferenceStatement: {
        arn: new CfnIPSet(this, `gateway-ranges-${version.toLowerCase()}`, {
          scope: 'REGIONAL',
          ipAddressVersion: version,
          addresses,
          description: 'msgbridge: the gateway egress ranges allowed to call the webhooks',
        }).attrArn,
      },
    }));
    const [only] = statements;
    return {
      name: 'gateway-ranges',
      priority: 0,
      action: { allow: {} },
      statement:
        statements.length === 1 && only !== undefined ? only : { orStatement: { statements } },
      visibilityConfig,
    };
  }
}
