import { join } from 'node:path';
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  type Method,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { grantTableItemActions } from './grants.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { MsgbridgeFunction } from './msgbridge-function.ts';
import { integerProblem, isCidr, throwIfInvalid } from './props-validation.ts';
import {
  WebhookFirewall,
  type WebhookFirewallOptions,
  webhookFirewallProblems,
} from './webhook-firewall.ts';

/** The settings of the webhook front door that a deployment may choose. */
export interface WebhookApiOptions {
  /**
   * Steady-state requests per second the stage accepts (all routes together); more answer 429,
   * which the gateway retries.
   * @default 100
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the stage accepts in a burst above the rate limit.
   * @default 200
   */
  readonly throttlingBurstLimit?: number;
  /**
   * Source addresses allowed to call the webhooks (the gateway's egress ranges), as IPv4 or IPv6
   * CIDR blocks. When set, a resource policy denies every other source.
   * @default - any source; the path secret alone authenticates
   */
  readonly allowedSourceCidrs?: readonly string[];
  /**
   * Stage name, the first path segment of every webhook URL. Changing it changes the URLs
   * registered in the gateway console.
   * @default 'v1'
   */
  readonly stageName?: string;
  /**
   * Days a stored report or inbound message is kept (DynamoDB TTL), and so the window in which a
   * redelivery is recognised as a duplicate. At least 8: the gateway redelivers MO for 7 days.
   * @default 35
   */
  readonly eventRetentionDays?: number;
  /**
   * Conditional puts a receiver keeps in flight for one webhook body.
   * @default 16
   */
  readonly storeConcurrency?: number;
  /**
   * Days the stage's access logs are kept.
   * @default RetentionDays.ONE_YEAR
   */
  readonly accessLogRetention?: RetentionDays;
  /**
   * X-Ray active tracing on the API stage. Off by default because API Gateway's trace segment
   * records the full request URL, which carries the webhook secret; the receivers are traced
   * either way.
   * @default false
   */
  readonly stageTracing?: boolean;
  /**
   * Create the account-level role that lets API Gateway write access logs to CloudWatch Logs
   * (`AWS::ApiGateway::Account`, one per account and region). Set to false when the account
   * already has one.
   * @default true
   */
  readonly cloudWatchRole?: boolean;
  /**
   * An AWS WAF web ACL on the stage, so that a flood from other sources (wrong secrets included)
   * cannot use up the stage throttle the gateway's deliveries need. It costs about $6 a month plus
   * $0.60 per million requests (docs/deploy.md, "Flood protection").
   * @default - none: the stage throttle, the path secret and `allowedSourceCidrs` only
   */
  readonly firewall?: WebhookFirewallOptions;
}

export interface WebhookApiProps extends WebhookApiOptions {
  /** Where the receivers put each report, inbound message and quarantined body. */
  readonly eventTable: ITableV2;
  /** The path secret, `{"current": "...", "previous": "..."}` (see `WebhookSecret`). */
  readonly webhookSecret: ISecret;
  /**
   * CloudWatch namespace of the receivers' metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
  /**
   * Customer managed key of the access log group and the receivers' log groups.
   * @default - CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `WebhookApiOptions`, for a caller that reports every problem at once. */
export const webhookApiProblems = (options: WebhookApiOptions): string[] => {
  const problems = [
    ...integerProblem('throttlingRateLimit', options.throttlingRateLimit, {
      min: 1,
      max: 10_000,
    }),
    ...integerProblem('throttlingBurstLimit', options.throttlingBurstLimit, {
      min: 1,
      max: 5_000,
    }),
    ...integerProblem('eventRetentionDays', options.eventRetentionDays, { min: 8, max: 3_650 }),
    ...integerProblem('storeConcurrency', options.storeConcurrency, { min: 1, max: 100 }),
  ];
  const cidrs = options.allowedSourceCidrs;
  if (cidrs !== undefined) {
    if (cidrs.length === 0)
      problems.push('allowedSourceCidrs is empty; list at least one CIDR block or leave it out');
    for (const cidr of cidrs.filter((value) => !isCidr(value)))
      problems.push(`allowedSourceCidrs: "${cidr}" is not an IPv4 or IPv6 CIDR block`);
  }
  if (options.stageName !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(options.stageName))
    problems.push(
      `stageName must be 1-128 letters, digits, "-" or "_", got "${options.stageName}"`,
    );
  if (options.firewall)
    problems.push(...webhookFirewallProblems(options.firewall, options.allowedSourceCidrs));
  return problems;
};

/**
 * The webhook front door: a regional REST API with `POST /webhooks/{secret}/report` →
 * `receive-reports` and `POST /webhooks/{secret}/mo` → `receive-inbound` (Lambda proxy), stage
 * throttling, JSON access logs that never contain the secret, and an optional source-CIDR
 * allowlist. The receivers may put items into the event table and read the webhook secret,
 * nothing else.
 *
 * REST APIs have no request-size setting below their 10 MB payload limit (Lambda takes 6 MB);
 * the receivers store every body that reaches them, keeping those too large for one item or one
 * event in the attachment bucket below `payloads/` (claim check, see `grantPayloadWrites`).
 */
export class WebhookApi extends Construct {
  /** Powertools service names of the receivers: the `service` dimension of their metrics. */
  static readonly RECEIVER_SERVICES = ['receive-reports', 'receive-inbound'] as const;

  public readonly api: RestApi;
  public readonly receiveReports: MsgbridgeFunction;
  public readonly receiveInbound: MsgbridgeFunction;
  public readonly accessLogs: LogGroup;
  /** `https://…/<stage>/webhooks/<secret>/report`: the report webhook URL to register. */
  public readonly reportUrlTemplate: string;
  /** `https://…/<stage>/webhooks/<secret>/mo`: the MO webhook URL to register. */
  public readonly inboundUrlTemplate: string;
  /** The web ACL on the stage, when `firewall` is set. */
  public readonly firewall?: WebhookFirewall;

  constructor(scope: Construct, id: string, props: WebhookApiProps) {
    super(scope, id);
    throwIfInvalid('WebhookApi', webhookApiProblems(props));

    const environment = {
      EVENT_TABLE_NAME: props.eventTable.tableName,
      WEBHOOK_SECRET_ARN: props.webhookSecret.secretArn,
      EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
      STORE_CONCURRENCY: String(props.storeConcurrency ?? 16),
      POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    };
    const receiver = (name: string, description: string) => {
      const fn = new MsgbridgeFunction(this, name, {
        entry: join(import.meta.dirname, `../functions/${name}.ts`),
        description,
        environment,
        logEncryptionKey: props.encryptionKey,
      });
      // A conditional PutItem is the receivers' only table call, so they get no other action.
      grantTableItemActions(props.eventTable, fn, 'dynamodb:PutItem');
      // Also kms:Decrypt on the secret's key, through Secrets Manager only (kms:ViaService).
      props.webhookSecret.grantRead(fn);
      return fn;
    };
    this.receiveReports = receiver(
      'receive-reports',
      'msgbridge: POST /webhooks/{secret}/report, stores each delivery report once',
    );
    this.receiveInbound = receiver(
      'receive-inbound',
      'msgbridge: POST /webhooks/{secret}/mo, stores each inbound message once',
    );

    this.accessLogs = new LogGroup(this, 'access-logs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
    });

    this.api = new RestApi(this, 'api', {
      restApiName: `${Stack.of(this).stackName}-webhooks`,
      description: 'msgbridge webhooks: delivery reports and inbound messages from the gateway',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      cloudWatchRole: props.cloudWatchRole ?? true,
      ...(props.allowedSourceCidrs ? { policy: sourceCidrPolicy(props.allowedSourceCidrs) } : {}),
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        throttlingRateLimit: props.throttlingRateLimit ?? 100,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 200,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
        metricsEnabled: true,
        tracingEnabled: props.stageTracing ?? false,
        // Execution logs would record the request path, and with it the secret (see APIG6 below).
        loggingLevel: MethodLoggingLevel.OFF,
        dataTraceEnabled: false,
      },
    });

    // Validates that the path secret is present. It validates no body: a method without a request
    // model has nothing to validate it against, and that is deliberate — the receivers must see
    // every body, however malformed, to store it in quarantine instead of losing it.
    const validator = this.api.addRequestValidator('request-validator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    const secretPath = this.api.root.addResource('webhooks').addResource('{secret}');
    const route = (path: string, fn: MsgbridgeFunction): Method => {
      const method = secretPath
        .addResource(path)
        .addMethod('POST', new LambdaIntegration(fn, { allowTestInvoke: false }), {
          authorizationType: AuthorizationType.NONE,
          requestParameters: { 'method.request.path.secret': true },
          requestValidator: validator,
        });
      const reason =
        'The gateway posts webhooks without credentials of any kind: it cannot sign requests, send a token header or use IAM or Cognito. The secret path segment, compared in constant time against the current and previous value from Secrets Manager (404 on mismatch), is the authentication; the stage is throttled and an optional source-CIDR resource policy narrows it further.';
      Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
      Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason });
      return method;
    };
    route('report', this.receiveReports);
    route('mo', this.receiveInbound);

    // RestApi adds an unnamed `Endpoint` output; the stack publishes the URLs under clear names.
    this.api.node.tryRemoveChild('Endpoint');
    this.reportUrlTemplate = this.api.urlForPath('/webhooks/<secret>/report');
    this.inboundUrlTemplate = this.api.urlForPath('/webhooks/<secret>/mo');

    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG6',
      reason:
        'Execution logging is off on purpose: API Gateway writes the request path into execution logs, and the path carries the webhook secret. The stage has JSON access logs (resource path only, never the path), execution metrics, and each receiver logs every outcome itself.',
    });
    if (props.firewall) {
      this.firewall = new WebhookFirewall(this, 'firewall', {
        ...props.firewall,
        stage: this.api.deploymentStage,
        allowedSourceCidrs: props.allowedSourceCidrs,
      });
    } else {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'The web ACL is an opt-in (webhooks.firewall) because it costs more than the rest of the front door at low volume. Without it the only caller is the messaging gateway, the stage is throttled, every request must carry the constant-time-checked path secret, and allowedSourceCidrs restricts callers to the gateway egress ranges through the resource policy; docs/deploy.md explains when to turn the web ACL on.',
      });
    }
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'API Gateway needs an account-level role to write access logs to CloudWatch Logs; AmazonAPIGatewayPushToCloudWatchLogs is the AWS-maintained policy documented for exactly this role, and only apigateway.amazonaws.com can assume it.',
      });
    }
  }
}

/**
 * JSON access log lines. `$context.resourcePath` is the route template
 * (`/webhooks/{secret}/report`); `$context.path` and `$context.error.message` are left out because
 * both can contain the requested path, and with it the secret.
 */
const accessLogFormat = (): AccessLogFormat =>
  AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      sourceIp: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      errorType: AccessLogField.contextErrorResponseType(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );

/** Allows invocation from the given CIDR blocks only: an explicit deny for every other source. */
const sourceCidrPolicy = (cidrs: readonly string[]): PolicyDocument =>
  new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'AllowWebhooks',
        effect: Effect.ALLOW,
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
      }),
      new PolicyStatement({
        sid: 'DenyOutsideAllowedSourceCidrs',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { NotIpAddress: { 'aws:SourceIp': [...cidrs] } },
      }),
    ],
  });
