import { Stack } from 'aws-cdk-lib';
import {
  type IMetric,
  MathExpression,
  Metric,
  type MetricOptions,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import {
  type FunctionUrl,
  FunctionUrlAuthType,
  type IFunction,
  type Function as LambdaFunction,
} from 'aws-cdk-lib/aws-lambda';

/**
 * The request metrics of the webhook front door, whichever it is: the REST API stage's own
 * (`Stage` has these four methods) or the sum over the two receivers' function URLs. With
 * `statistic: 'Average'`, the error metrics are the share of requests with that answer, as API
 * Gateway's `4XXError` and `5XXError` averages are.
 */
export interface WebhookRequestMetrics {
  metricCount(props?: MetricOptions): IMetric;
  metricClientError(props?: MetricOptions): IMetric;
  metricServerError(props?: MetricOptions): IMetric;
  metricLatency(props?: MetricOptions): IMetric;
}

/** The props of `WebhookApiOptions` that configure API Gateway, with what each is. */
const API_GATEWAY_ONLY = {
  firewall: 'an AWS WAF web ACL, which cannot be associated with a function URL',
  throttlingRateLimit: 'stage throttling (use receiverConcurrency)',
  throttlingBurstLimit: 'stage throttling (use receiverConcurrency)',
  stageName: 'a stage, and function URLs have none',
  accessLogRetention: 'API Gateway access logs, which function URLs do not write',
  stageTracing: 'X-Ray on the stage (the receivers are traced either way)',
  cloudWatchRole: 'the account role API Gateway writes access logs with',
} as const;

/**
 * Every prop that cannot apply to the function-URL front, named, so that one error lists them all
 * rather than the deployment silently losing a protection it asked for.
 */
export const functionUrlFrontProblems = (
  options: {
    readonly [name in keyof typeof API_GATEWAY_ONLY]?: unknown;
  },
  { defaulted = false }: { readonly defaulted?: boolean } = {},
): string[] =>
  (Object.keys(API_GATEWAY_ONLY) as (keyof typeof API_GATEWAY_ONLY)[])
    .filter((name) => options[name] !== undefined)
    .map(
      (name) =>
        `${name} cannot apply with front "function-url"${defaulted ? ' (the default)' : ''}: it configures ${API_GATEWAY_ONLY[name]}; leave it out or ${defaulted ? 'set' : 'use'} front "rest-api"`,
    );

/**
 * A function URL without authentication on a receiver. The gateway posts webhooks without
 * credentials of any kind: it cannot sign requests (SigV4, so no AWS_IAM auth type), send a token
 * header or use Cognito. So the URL is public by design, and the receiver authenticates every
 * request itself before any store work: a source outside `ALLOWED_SOURCE_CIDRS` is answered 403,
 * then the secret path segment is compared in constant time (404 on mismatch). A Lambda resource
 * policy cannot carry an `aws:SourceIp` condition (AddPermission takes only a principal, a source
 * ARN or account, an organization and the function URL auth type), so the allowlist cannot live
 * there. The AwsSolutions pack of cdk-nag has no rule on function URLs (cdk-nag 3.0.2); the
 * packs that do (HIPAA, NIST, PCI: LambdaFunctionPublicAccessProhibited) are not applied.
 */
export const addWebhookFunctionUrl = (fn: LambdaFunction): FunctionUrl =>
  fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });

/** The sum of one `AWS/Lambda` function URL metric over both receivers. */
const urlMetric = (metricName: string, fn: IFunction, options: MetricOptions) =>
  new Metric({
    namespace: 'AWS/Lambda',
    metricName,
    dimensionsMap: { FunctionName: fn.functionName },
    ...options,
    region: options.region ?? Stack.of(fn).region,
  });

/**
 * The function URLs' request metrics (`UrlRequestCount`, `Url4xxCount`, `Url5xxCount`,
 * `UrlRequestLatency`) of both receivers, as one front door's.
 */
export const functionUrlMetrics = (
  reports: IFunction,
  inbound: IFunction,
): WebhookRequestMetrics => {
  // Ids are unique per metric: a graph or an alarm may hold several of these expressions.
  const both = (metricName: string, options: MetricOptions) => {
    const id = metricName.toLowerCase();
    return {
      reports: `${id}_reports`,
      inbound: `${id}_inbound`,
      metrics: {
        [`${id}_reports`]: urlMetric(metricName, reports, options),
        [`${id}_inbound`]: urlMetric(metricName, inbound, options),
      },
    };
  };
  const periodOf = (options: MetricOptions) => (options.period ? { period: options.period } : {});
  const sum = (metricName: string, label: string, options: MetricOptions = {}) => {
    const {
      reports: a,
      inbound: b,
      metrics,
    } = both(metricName, {
      ...options,
      statistic: Stats.SUM,
    });
    return new MathExpression({
      expression: `FILL(${a}, 0) + FILL(${b}, 0)`,
      usingMetrics: metrics,
      label: options.label ?? label,
      ...periodOf(options),
    });
  };
  /** With an Average statistic, the share of requests with that answer; else their number. */
  const errors = (metricName: string, label: string, options: MetricOptions = {}) => {
    if (options.statistic !== Stats.AVERAGE) return sum(metricName, label, options);
    const at = { ...options, statistic: Stats.SUM };
    const failed = both(metricName, at);
    const all = both('UrlRequestCount', at);
    return new MathExpression({
      // No requests in a period is no data point (missing, not breaching), not a division by 0.
      expression: `(FILL(${failed.reports}, 0) + FILL(${failed.inbound}, 0)) / (${all.reports} + ${all.inbound})`,
      usingMetrics: { ...failed.metrics, ...all.metrics },
      label: options.label ?? `${label} share`,
      ...periodOf(options),
    });
  };
  return {
    metricCount: (options) => sum('UrlRequestCount', 'Requests', options),
    metricClientError: (options) => errors('Url4xxCount', '4XX', options),
    metricServerError: (options) => errors('Url5xxCount', '5XX', options),
    // Percentiles of two URLs do not add up: the higher of the two, per period. Each latency
    // expression gets ids of its own statistic, so p50 and p99 can share a graph.
    metricLatency: (options = {}) => {
      const statistic = (options.statistic ?? 'Average').toLowerCase().replace(/[^a-z0-9]/g, '');
      const a = `urlrequestlatency_${statistic}_reports`;
      const b = `urlrequestlatency_${statistic}_inbound`;
      return new MathExpression({
        expression: `MAX([${a}, ${b}])`,
        usingMetrics: {
          [a]: urlMetric('UrlRequestLatency', reports, options),
          [b]: urlMetric('UrlRequestLatency', inbound, options),
        },
        label: options.label ?? 'Latency (the slower receiver)',
        ...periodOf(options),
      });
    },
  };
};
