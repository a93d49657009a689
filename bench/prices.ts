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
} as const;

/** Memory of each function as the stack configures it (`lib/`), in MB. */
export const LAMBDA_MEMORY_MB = {
  'receive-reports': 256,
  'receive-inbound': 256,
  'publish-events': 256,
  'send-messages': 256,
  'fetch-attachments': 512,
} as const;
