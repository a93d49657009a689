/**
 * AWS list prices, US East (N. Virginia), in USD, for turning counted calls into a cost per
 * million messages. First pricing tier, no free tier, no savings plans, Standard table class and
 * storage class.
 *
 * Table written 2026-11-22 from the public pricing pages below; the benchmark does not fetch them,
 * so check the pages before quoting a cost. The last change among these rates was DynamoDB
 * on-demand's price cut of 2024-11-01.
 *   DynamoDB (on-demand, Streams)  https://aws.amazon.com/dynamodb/pricing/on-demand/
 *   SQS                            https://aws.amazon.com/sqs/pricing/
 *   EventBridge                    https://aws.amazon.com/eventbridge/pricing/
 *   S3                             https://aws.amazon.com/s3/pricing/
 *   Lambda                         https://aws.amazon.com/lambda/pricing/
 *   API Gateway                    https://aws.amazon.com/api-gateway/pricing/
 *
 * Added 2026-11-25 from the public pages below (same region, same rules):
 *   CloudWatch Logs (Standard class)  https://aws.amazon.com/cloudwatch/pricing/
 *   X-Ray                             https://aws.amazon.com/xray/pricing/
 *   KMS                               https://aws.amazon.com/kms/pricing/
 *   Secrets Manager                   https://aws.amazon.com/secrets-manager/pricing/
 *   NAT gateway, VPC endpoints        https://aws.amazon.com/vpc/pricing/ , https://aws.amazon.com/privatelink/pricing/
 *   Lambda function URLs              https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html
 *   Lambda INIT billing (1 Aug 2025)  https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/
 *
 * Added 2026-12-07 for the idle month (`idle-month-model.ts`), each with where it was read and
 * when: fixed monthly lines, per resource or per hour. Where the Seoul column could not be read,
 * `regional-cost.ts` names the price in `US_EAST_PRICES_IN_SEOUL` and the figures say so.
 */
export const PRICES_AS_OF = '2026-11-22';
export const PRICE_REGION = 'us-east-1';

export const PRICES = {
  /** On-demand, per write request unit (1 KB of item per standard write). */
  dynamoDbWriteRequestUnit: 0.625 / 1e6,
  /** On-demand, per read request unit (4 KB strongly consistent, or 8 KB eventually consistent). */
  dynamoDbReadRequestUnit: 0.125 / 1e6,
  /**
   * Per DynamoDB Streams read request (one GetRecords call). GetRecords made by a Lambda event
   * source mapping — how the deployed stack reads its stream — are free; the local poller's calls
   * are counted and shown, at this price times zero.
   */
  dynamoDbStreamsReadRequest: 0.02 / 100_000,
  /** Standard queue, per request; each 64 KB chunk of a request's payload is one request. */
  sqsRequest: 0.4 / 1e6,
  /** Custom events put on a bus, per event; each 64 KB chunk of an entry is one event. */
  eventBridgeEvent: 1.0 / 1e6,
  /** Archive: per GB of events processed into the archive (storage is extra, per GB-month). */
  eventBridgeArchiveGb: 0.1,
  /** S3 Standard PUT, COPY, POST and LIST requests. */
  s3PutRequest: 0.005 / 1_000,
  /** S3 Standard GET, SELECT, HEAD and all other requests. */
  s3GetRequest: 0.0004 / 1_000,
  /** Lambda requests, either architecture. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda duration on arm64 (the stack's architecture), per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  /** API Gateway REST API, per request (first 333 million a month). */
  apiGatewayRestRequest: 3.5 / 1e6,
  /** API Gateway HTTP API, per request of up to 512 KB (each further 512 KB is one more). */
  apiGatewayHttpRequest: 1.0 / 1e6,
  /** Lambda function URL: no charge of its own (the function's requests and duration are). */
  lambdaFunctionUrlRequest: 0,
  /** CloudWatch Logs, Standard log class, per GB ingested (first tier). */
  cloudWatchLogsIngestedGb: 0.5,
  /** X-Ray, per trace recorded (the first 100,000 a month are free; not applied). */
  xrayTraceRecorded: 5.0 / 1e6,
  /** KMS, per symmetric key API request (Decrypt, GenerateDataKey, ...); first 20,000 free. */
  kmsRequest: 0.03 / 10_000,
  /**
   * KMS customer managed key, per key-month (the stack's one data key; a fixed cost). With
   * automatic rotation on (the stack's key), each newly generated backing key costs another $1 a
   * month: https://aws.amazon.com/kms/pricing/ (read 2026-12-07: "If you enable automatic key
   * rotation, each newly generated backing key costs an additional $1/month").
   */
  kmsKeyMonth: 1.0,
  /** Secrets Manager, per 10,000 API calls (GetSecretValue). */
  secretsManagerApiCall: 0.05 / 10_000,
  /** NAT gateway, per GB processed (either direction), on top of its hourly charge. */
  natGatewayGb: 0.045,
  /** NAT gateway, per hour it runs (a fixed cost, per NAT gateway). */
  natGatewayHour: 0.045,
  /**
   * Public IPv4 address (the NAT gateway's or NAT instance's Elastic IP), per hour, in use or idle,
   * every Region, since 2024-02-01: https://aws.amazon.com/vpc/pricing/ (Public IPv4 Address tab;
   * read 2026-12-07 through AWS SDK docs pointing there and summaries quoting "$0.005 per IP per
   * hour").
   */
  publicIpv4Hour: 0.005,
  /** Interface VPC endpoint, per GB processed (first PB); gateway endpoints (S3, DynamoDB) are free. */
  interfaceEndpointGb: 0.01,
  /**
   * Lambda INIT phase of on-demand functions, billed since 2025-08-01 at the function's duration
   * price (arm64 here): per GB-second, like `lambdaArmGbSecond`.
   */
  lambdaInitArmGbSecond: 0.0000133334,

  // ---- fixed monthly lines (the idle month) ----
  /**
   * Secrets Manager, per secret per month (prorated by the hour).
   * https://aws.amazon.com/secrets-manager/pricing/ (read 2026-12-07, through a summary of the page
   * that quotes "$0.40 per secret per month"; the page itself was not reachable from here).
   */
  secretsManagerSecretMonth: 0.4,
  /**
   * CloudWatch standard-resolution alarm, per alarm metric per month (an alarm on one metric is one).
   * https://aws.amazon.com/cloudwatch/pricing/ (read 2026-12-07 through transcriptions of the page;
   * the first 10 alarm metrics of an account are free: not applied).
   */
  cloudWatchAlarmMonth: 0.1,
  /**
   * CloudWatch dashboard, per month (the first 3 dashboards of an account, up to 50 metrics each,
   * are free: not applied, an account may have used them).
   * https://aws.amazon.com/cloudwatch/pricing/ (read 2026-12-07, as above).
   */
  cloudWatchDashboardMonth: 3.0,
  /**
   * CloudWatch custom metric (an EMF metric name × dimension set), per month, first 10,000 metrics;
   * prorated by the hour and metered only in hours the metric receives data.
   * https://aws.amazon.com/cloudwatch/pricing/ (read 2026-12-07, as above; first 10 free: not applied).
   */
  cloudWatchCustomMetricMonth: 0.3,
  /**
   * CloudWatch Logs vended logs (VPC flow logs delivered to CloudWatch Logs), per GB, first tier.
   * https://aws.amazon.com/cloudwatch/pricing/ (read 2026-12-07, as above).
   */
  cloudWatchVendedLogsGb: 0.5,
  /**
   * EventBridge Scheduler, per invocation (the first 14 million a month are free: not applied).
   * https://aws.amazon.com/eventbridge/pricing/ (read 2026-12-07 through a summary quoting "$1.00
   * per million, 14M invocations/month free").
   */
  eventBridgeSchedulerInvocation: 1.0 / 1e6,
  /**
   * EC2 t4g.nano on demand, Linux, per hour (the `nat-instance` egress: one Graviton instance).
   * https://aws.amazon.com/ec2/pricing/on-demand/ as quoted by cdk-fck-nat's README
   * (https://github.com/AndrewGuenther/cdk-fck-nat, read 2026-12-07): "t4g.nano hourly: $0.0042".
   */
  ec2T4gNanoHour: 0.0042,
  /**
   * EBS gp3, per GB-month (the NAT instance's root volume).
   * https://aws.amazon.com/ebs/pricing/ as quoted by fck-nat's README
   * (https://github.com/AndrewGuenther/fck-nat, read 2026-12-07): "fck-nat using gp3: $0.64" a
   * month for its 8 GB volume, $0.08 per GB-month.
   */
  ebsGp3GbMonth: 0.08,
} as const;

/** Hours in a month as AWS prorates them (365.25 × 24 / 12). */
export const HOURS_PER_MONTH = (365.25 * 24) / 12;

/** Memory of each function as the stack configures it (`lib/`), in MB. */
export const LAMBDA_MEMORY_MB = {
  'receive-reports': 256,
  'receive-inbound': 256,
  'publish-events': 256,
  'send-messages': 256,
  'fetch-attachments': 512,
  'reconcile-status': 256,
} as const;
