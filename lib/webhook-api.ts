import { join } from 'node:path';
import { RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
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
import type { FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ANY_SOURCE_SETTING } from '../functions/webhooks/source-allowlist.ts';
import { grantTableItemActions } from './grants.ts';
import { environmentShareProblems } from './lambda-environment.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { MsgbridgeFunction } from './msgbridge-function.ts';
import { integerProblem, isCidr, throwIfInvalid } from './props-validation.ts';
import {
  WebhookFirewall,
  type WebhookFirewallOptions,
  webhookFirewallProblems,
} from './webhook-firewall.ts';
import {
  addWebhookFunctionUrl,
  functionUrlFrontProblems,
  functionUrlMetrics,
  type WebhookRequestMetrics,
} from './webhook-function-urls.ts';

/** What receives the gateway's webhook requests (docs/deploy.md, "Webhook front door"). */
export type WebhookFront = 'rest-api' | 'function-url';

/** The front door of a deployment that does not choose one (`WebhookApiOptions.front`). */
export const DEFAULT_WEBHOOK_FRONT: WebhookFront = 'function-url';

/** Lambda's limit on a synchronous invocation's payload: no larger body reaches a receiver. */
export const LAMBDA_PAYLOAD_BYTES = 6_291_456;

/**
 * Reserved concurrency of each receiver behind function URLs, when the account's quota allows a
 * reservation (`accountConcurrency`): with a receiver's invocation at about 50–100 ms, some
 * 100–200 requests per second each, in the range of the REST stage's default throttle (100 per
 * second, burst 200) for both routes together.
 */
const FUNCTION_URL_RECEIVER_CONCURRENCY = 10;

/**
 * Executions Lambda keeps unreserved in every account and Region: a function may reserve only
 * what the account's concurrency quota leaves above them (Lambda developer guide, "Configuring
 * reserved concurrency"). New accounts start with a quota of 10 or 50, so a stack that reserves
 * anything fails to deploy there.
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/** The settings of the webhook front door that a deployment may choose. */
export interface WebhookApiOptions {
  /**
   * The front door: `function-url`, one Lambda function URL per receiver (no request charge)
   * where the receiver itself refuses other sources (403), wrong secrets (404) and oversized
   * bodies (413), and reserved concurrency is the throttle; or `rest-api`, a regional API Gateway
   * REST API ($3.50 per million requests) with stage throttling, a source-CIDR resource policy
   * and an optional AWS WAF web ACL, which refuse requests before any Lambda is invoked (for a
   * deployment that knows the gateway's source ranges or wants the web ACL). The props of API
   * Gateway (`firewall`, `throttling*`, `stageName`, `accessLogRetention`, `stageTracing`,
   * `cloudWatchRole`) are refused with `function-url`. docs/performance.md, "The webhook front
   * door", compares the two.
   * @default 'function-url'
   */
  readonly front?: WebhookFront;
  /**
   * Reserved concurrency of each receiver: the most invocations one receiver runs at once, and so
   * the throttle of the function-URL front (a request above it is answered 429 by Lambda, which
   * the gateway retries). It is taken from the account's regional concurrency, and Lambda refuses
   * a reservation that leaves fewer than 100 unreserved executions: it needs `accountConcurrency`.
   * @default - 10 with `function-url` when `accountConcurrency` allows it; otherwise unreserved
   *   (the REST stage throttles `rest-api`; see docs/deploy.md, "Webhook front door")
   */
  readonly receiverConcurrency?: number;
  /**
   * The account's Lambda concurrency quota in the deployment's Region (Service Quotas → AWS
   * Lambda → "Concurrent executions"), as read by the operator. Stated, it lets the receivers
   * reserve `receiverConcurrency` where the quota leaves 100 unreserved executions above the
   * reservations; without it nothing is reserved, so the stack deploys on a new account (whose
   * quota may be 10).
   * @default - not stated: no reserved concurrency
   */
  readonly accountConcurrency?: number;
  /**
   * Largest body, in bytes (after base64 decoding), a receiver stores, behind either front; a
   * larger one is answered 413 by the receiver before any store work, neither stored nor
   * quarantined. It acts only below what can reach a receiver: Lambda refuses an event of 6 MiB or
   * more before the receiver runs, and a function URL's event carries a binary body
   * base64-encoded, so no binary body of 4,718,592 bytes or more arrives (docs/deploy.md, "Body
   * size").
   * @default - 6,291,456 (Lambda's payload limit): no limit of the receivers' own
   */
  readonly maxBodyBytes?: number;
  /**
   * Steady-state requests per second the stage accepts (all routes together); more answer 429,
   * which the gateway retries. `rest-api` only.
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
   * CIDR blocks. When set, a resource policy denies every other source (`rest-api`), or the
   * receivers answer them 403 before any other work (`function-url`).
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
  const front = options.front ?? DEFAULT_WEBHOOK_FRONT;
  const problems = [
    ...(front === 'rest-api' || front === 'function-url'
      ? []
      : [`front must be "rest-api" or "function-url", got "${String(front)}"`]),
    ...(front === 'function-url'
      ? functionUrlFrontProblems(options, { defaulted: options.front === undefined })
      : []),
    ...integerProblem('receiverConcurrency', options.receiverConcurrency, { min: 1, max: 1_000 }),
    ...integerProblem('accountConcurrency', options.accountConcurrency, {
      min: 10,
      max: 1_000_000,
    }),
    ...reservationProblems(options),
    ...integerProblem('maxBodyBytes', options.maxBodyBytes, {
      min: 1_024,
      max: LAMBDA_PAYLOAD_BYTES,
    }),
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
    // The receivers read the list from their environment (ALLOWED_SOURCE_CIDRS).
    problems.push(
      ...environmentShareProblems(
        'allowedSourceCidrs',
        'ALLOWED_SOURCE_CIDRS',
        cidrs.join(','),
        "list the gateway's ranges with fewer, wider blocks",
      ),
    );
  }
  if (
    front === 'rest-api' &&
    options.stageName !== undefined &&
    !/^[A-Za-z0-9_-]{1,128}$/.test(options.stageName)
  )
    problems.push(
      `stageName must be 1-128 letters, digits, "-" or "_", got "${options.stageName}"`,
    );
  if (options.firewall && front === 'rest-api')
    problems.push(...webhookFirewallProblems(options.firewall, options.allowedSourceCidrs));
  return problems;
};

/**
 * Reserved concurrency of each receiver: only where the stated account quota leaves Lambda's 100
 * unreserved executions above both receivers' reservations.
 */
export const receiverReservation = (options: WebhookApiOptions): number | undefined => {
  if (options.accountConcurrency === undefined) return undefined;
  const front = options.front ?? DEFAULT_WEBHOOK_FRONT;
  const perReceiver =
    options.receiverConcurrency ??
    (front === 'function-url' ? FUNCTION_URL_RECEIVER_CONCURRENCY : undefined);
  if (perReceiver === undefined) return undefined;
  const fits =
    options.accountConcurrency - WebhookApi.RECEIVER_SERVICES.length * perReceiver >=
    LAMBDA_UNRESERVED_MINIMUM;
  // An explicit reservation that does not fit is a problem (reservationProblems); the default
  // is simply left out.
  return fits || options.receiverConcurrency !== undefined ? perReceiver : undefined;
};

const reservationProblems = (options: WebhookApiOptions): string[] => {
  const { receiverConcurrency, accountConcurrency } = options;
  if (receiverConcurrency === undefined || Token.isUnresolved(receiverConcurrency)) return [];
  // An integer out of range is reported by integerProblem.
  if (!Number.isInteger(receiverConcurrency) || receiverConcurrency < 1) return [];
  const reserved = WebhookApi.RECEIVER_SERVICES.length * receiverConcurrency;
  if (accountConcurrency === undefined)
    return [
      `receiverConcurrency reserves ${reserved} executions (both receivers), which Lambda refuses on an account whose concurrency quota is below ${reserved + LAMBDA_UNRESERVED_MINIMUM} (new accounts have 10 or 50): state the quota as webhooks.accountConcurrency (Service Quotas → AWS Lambda → Concurrent executions), or leave receiverConcurrency out`,
    ];
  if (Token.isUnresolved(accountConcurrency)) return [];
  return accountConcurrency - reserved >= LAMBDA_UNRESERVED_MINIMUM
    ? []
    : [
        `receiverConcurrency reserves ${reserved} executions (both receivers), but an account quota of ${accountConcurrency} leaves Lambda fewer than the ${LAMBDA_UNRESERVED_MINIMUM} unreserved executions it keeps: lower receiverConcurrency to at most ${Math.max(0, Math.floor((accountConcurrency - LAMBDA_UNRESERVED_MINIMUM) / WebhookApi.RECEIVER_SERVICES.length))} or raise the quota`,
      ];
};

/**
 * The webhook front door. With `front: 'function-url'` (the default): one function URL per
 * receiver (AuthType NONE) serving `POST /webhooks/{secret}/report` → `receive-reports` and
 * `POST /webhooks/{secret}/mo` → `receive-inbound`, reserved concurrency as the throttle where the
 * stated account quota allows one (`receiverReservation`), and the allowlist and body limit
 * enforced by the receivers. With `front: 'rest-api'`: a regional REST
 * API with the same paths (Lambda proxy), stage throttling, JSON access logs that never contain
 * the secret, and an optional source-CIDR allowlist in its resource policy. The receivers may put items into the
 * event table and read the webhook secret, nothing else.
 *
 * REST APIs have no request-size setting below their 10 MB payload limit (Lambda takes 6 MB);
 * the receivers store every body that reaches them, keeping those too large for one item or one
 * event in the attachment bucket below `payloads/` (claim check, see `grantPayloadWrites`).
 */
export class WebhookApi extends Construct {
  /** Powertools service names of the receivers: the `service` dimension of their metrics. */
  static readonly RECEIVER_SERVICES = ['receive-reports', 'receive-inbound'] as const;

  public readonly front: WebhookFront;
  /** The REST API, with `front: 'rest-api'`. */
  public readonly restApi?: RestApi;
  public readonly receiveReports: MsgbridgeFunction;
  public readonly receiveInbound: MsgbridgeFunction;
  /** The stage's access logs, with `front: 'rest-api'`. */
  public readonly accessLogs?: LogGroup;
  /** The receivers' function URLs (reports, then inbound), with `front: 'function-url'`. */
  public readonly functionUrls?: readonly [FunctionUrl, FunctionUrl];
  /** `https://…/<stage>/webhooks/<secret>/report`: the report webhook URL to register. */
  public readonly reportUrlTemplate: string;
  /** `https://…/<stage>/webhooks/<secret>/mo`: the MO webhook URL to register. */
  public readonly inboundUrlTemplate: string;
  /** The web ACL on the stage, when `firewall` is set. */
  public readonly firewall?: WebhookFirewall;
  /** Requests, 4XX, 5XX and latency of the front door, whichever it is. */
  public readonly requestMetrics: WebhookRequestMetrics;

  /**
   * The REST API.
   * @throws with `front: 'function-url'`, which has none (`requestMetrics` serves both fronts)
   */
  public get api(): RestApi {
    if (!this.restApi)
      throw new Error(
        'WebhookApi: the front door is "function-url", which has no REST API; use requestMetrics or functionUrls',
      );
    return this.restApi;
  }

  constructor(scope: Construct, id: string, props: WebhookApiProps) {
    super(scope, id);
    throwIfInvalid('WebhookApi', webhookApiProblems(props));
    this.front = props.front ?? DEFAULT_WEBHOOK_FRONT;
    const functionUrl = this.front === 'function-url';

    const environment: Record<string, string> = {
      EVENT_TABLE_NAME: props.eventTable.tableName,
      WEBHOOK_SECRET_ARN: props.webhookSecret.secretArn,
      EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
      STORE_CONCURRENCY: String(props.storeConcurrency ?? 16),
      POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    };
    // Every variable the receivers read is set, whatever the front: the allowlist (`*`, every
    // source, unless one is configured; behind a REST API its resource policy refuses other
    // sources first) and the body limit (Lambda's payload limit unless a lower one is asked for).
    environment.ALLOWED_SOURCE_CIDRS = props.allowedSourceCidrs?.join(',') ?? ANY_SOURCE_SETTING;
    environment.MAX_BODY_BYTES = String(props.maxBodyBytes ?? LAMBDA_PAYLOAD_BYTES);
    const reservedConcurrentExecutions = receiverReservation(props);

    const receiver = (name: string, description: string) => {
      const fn = new MsgbridgeFunction(this, name, {
        entry: join(import.meta.dirname, `../functions/${name}.ts`),
        description,
        environment,
        logEncryptionKey: props.encryptionKey,
        ...(reservedConcurrentExecutions === undefined ? {} : { reservedConcurrentExecutions }),
      });
      // A conditional PutItem is the receivers' one table call.
      grantTableItemActions(props.eventTable, fn, 'dynamodb:PutItem');
      // GetSecretValue only: `grantRead` would add DescribeSecret, which the receivers never call.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [
            props.webhookSecret.secretFullArn ?? `${props.webhookSecret.secretArn}-??????`,
          ],
        }),
      );
      // kms:Decrypt through Secrets Manager only (kms:ViaService), as `grantRead` grants it, in
      // the role's own policy: a key policy naming a role of the same template fails the stack's
      // creation (KMS refuses a principal it cannot see yet), and the key policy's statement for
      // the account already lets IAM policies grant the key.
      const secretKey = props.webhookSecret.encryptionKey;
      if (secretKey)
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['kms:Decrypt'],
            resources: [secretKey.keyArn],
            conditions: {
              StringEquals: {
                'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com`,
              },
            },
          }),
        );
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

    if (functionUrl) {
      const urls = [
        addWebhookFunctionUrl(this.receiveReports),
        addWebhookFunctionUrl(this.receiveInbound),
      ] as const;
      this.functionUrls = urls;
      // A function URL ends with "/" and serves every path: the receiver checks it is this one.
      this.reportUrlTemplate = `${urls[0].url}webhooks/<secret>/report`;
      this.inboundUrlTemplate = `${urls[1].url}webhooks/<secret>/mo`;
      this.requestMetrics = functionUrlMetrics(this.receiveReports, this.receiveInbound);
      return;
    }

    this.accessLogs = new LogGroup(this, 'access-logs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
    });

    const api = new RestApi(this, 'api', {
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
    this.restApi = api;
    this.requestMetrics = api.deploymentStage;
    const validator = api.addRequestValidator('request-validator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    const secretPath = api.root.addResource('webhooks').addResource('{secret}');
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
    api.node.tryRemoveChild('Endpoint');
    this.reportUrlTemplate = api.urlForPath('/webhooks/<secret>/report');
    this.inboundUrlTemplate = api.urlForPath('/webhooks/<secret>/mo');

    Validations.of(api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG6',
      reason:
        'Execution logging is off on purpose: API Gateway writes the request path into execution logs, and the path carries the webhook secret. The stage has JSON access logs (resource path only, never the path), execution metrics, and each receiver logs every outcome itself.',
    });
    if (props.firewall) {
      this.firewall = new WebhookFirewall(this, 'firewall', {
        ...props.firewall,
        stage: api.deploymentStage,
        allowedSourceCidrs: props.allowedSourceCidrs,
      });
    } else {
      Validations.of(api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'The web ACL is an opt-in (webhooks.firewall) because it costs more than the rest of the front door at low volume. Without it the only caller is the messaging gateway, the stage is throttled, every request must carry the constant-time-checked path secret, and allowedSourceCidrs restricts callers to the gateway egress ranges through the resource policy; docs/deploy.md explains when to turn the web ACL on.',
      });
    }
    const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
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
