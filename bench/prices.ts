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
  /** KMS customer managed key, per key-month (the stack's one data key; a fixed cost). */
  kmsKeyMonth: 1.0,
  /** Secrets Manager, per 10,000 API calls (GetSecretValue). */
  secretsManagerApiCall: 0.05 / 10_000,
  /** NAT gateway, per GB processed (either direction), on top of its hourly charge. */
  natGatewayGb: 0.045,
  /** NAT gateway, per hour it runs (a fixed cost, per NAT gateway). */
  natGatewayHour: 0.045,
  /** Public IPv4 address (the NAT gateway's Elastic IP), per hour: a fixed cost. */
  publicIpv4Hour: 0.005,
  /** Interface VPC endpoint, per GB processed (first PB); gateway endpoints (S3, DynamoDB) are free. */
  interfaceEndpointGb: 0.01,
  /**
   * Lambda INIT phase of on-demand functions, billed since 2025-08-01 at the function's duration
   * price (arm64 here): per GB-second, like `lambdaArmGbSecond`.
   */
  lambdaInitArmGbSecond: 0.0000133334,
} as const;

/** Memory of each function as the stack configures it (`lib/`), in MB. */
export const LAMBDA_MEMORY_MB = {
  'receive-reports': 256,
  'receive-inbound': 256,
  'publish-events': 256,
  'send-messages': 256,
  'fetch-attachments': 512,
  'reconcile-status': 256,
} as const;
