/**
 * The AWS SDK calls msgbridge's functions make, in one module that a test bundles as the functions
 * are bundled (`lambdaBuildOptions`) and runs in a fresh `node` against the local services: what
 * each call answered, without what differs between runs (request ids, dates, message ids).
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

export interface ProbeInput {
  readonly dynamodb: string;
  readonly fauxqs: string;
  readonly jsonServices: string;
  /** Names this run's table, bucket and queue, so that runs do not meet. */
  readonly run: string;
  readonly secretId: string;
  readonly busName: string;
}

/** An SDK error as a caller reads it. */
const failure = (error: unknown) => {
  const { name, $fault, $metadata } = error as {
    name: string;
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
  };
  return { error: name, fault: $fault, status: $metadata?.httpStatusCode };
};

const attempt = async <T>(call: () => Promise<T>) => {
  try {
    return { answer: await call() };
  } catch (error) {
    return failure(error);
  }
};

export const handler = async (input: ProbeInput) => {
  const credentials = { accessKeyId: 'AKIDPROBE', secretAccessKey: 'probe-secret' };
  const common = { region: 'ap-northeast-2', credentials, maxAttempts: 1 };
  const table = `probe-${input.run}`;
  const bucket = `probe-${input.run}`;

  const dynamo = new DynamoDBClient({ ...common, endpoint: input.dynamodb });
  const documents = DynamoDBDocumentClient.from(dynamo);
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const key = { pk: 'message#1', sk: 'recipient#0' };
  const dynamodb = {
    put: await attempt(() =>
      documents.send(new PutCommand({ TableName: table, Item: { ...key, n: 1, text: '안녕 ok' } })),
    ).then(() => 'ok'),
    putAgain: await attempt(() =>
      documents.send(
        new PutCommand({
          TableName: table,
          Item: key,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ),
    update: (
      await documents.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: 'ADD n :one SET tags = :tags',
          ExpressionAttributeValues: { ':one': 1, ':tags': new Set(['a', 'b']) },
          ReturnValues: 'ALL_NEW',
        }),
      )
    ).Attributes,
    batch: (
      await documents.send(
        new BatchWriteCommand({
          RequestItems: {
            [table]: [1, 2].map((i) => ({
              PutRequest: { Item: { pk: 'message#1', sk: `recipient#${i}`, i } },
            })),
          },
        }),
      )
    ).UnprocessedItems,
    query: (
      await documents.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'message#1' },
          ScanIndexForward: false,
          Limit: 2,
        }),
      )
    ).Items,
    get: (await documents.send(new GetCommand({ TableName: table, Key: key }))).Item,
    delete: await attempt(() =>
      documents.send(new DeleteCommand({ TableName: table, Key: key })),
    ).then(() => 'ok'),
    missingTable: await attempt(() =>
      documents.send(new GetCommand({ TableName: `${table}-none`, Key: key })),
    ),
  };

  const s3Client = new S3Client({ ...common, endpoint: input.fauxqs, forcePathStyle: true });
  await s3Client.send(new CreateBucketCommand({ Bucket: bucket }));
  const body = 'an attachment, 첨부';
  const s3 = {
    put: (
      await s3Client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'inbound/a.txt',
          Body: body,
          ContentType: 'text/plain; charset=utf-8',
          Metadata: { source: 'probe' },
        }),
      )
    ).ETag,
    copy: (
      await s3Client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'inbound/b.txt',
          CopySource: `${bucket}/inbound/a.txt`,
        }),
      )
    ).CopyObjectResult?.ETag,
    get: await s3Client
      .send(new GetObjectCommand({ Bucket: bucket, Key: 'inbound/b.txt' }))
      .then(async (answer) => ({
        text: await answer.Body?.transformToString('utf-8'),
        type: answer.ContentType,
        length: answer.ContentLength,
        metadata: answer.Metadata,
      })),
    list: (
      await s3Client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'inbound/' }))
    ).Contents?.map(({ Key, Size }) => ({ Key, Size })),
    delete: await attempt(() =>
      s3Client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'inbound/a.txt' })),
    ).then(() => 'ok'),
    missing: await attempt(() =>
      s3Client.send(new GetObjectCommand({ Bucket: bucket, Key: 'inbound/a.txt' })),
    ),
  };

  const sqsClient = new SQSClient({ ...common, endpoint: input.fauxqs });
  const { QueueUrl } = await sqsClient.send(
    new CreateQueueCommand({ QueueName: `probe-${input.run}` }),
  );
  const sent = await sqsClient.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'a', MessageBody: '{"cliKey":"a"}' },
        { Id: 'b', MessageBody: '{"cliKey":"b"}', DelaySeconds: 0 },
      ],
    }),
  );
  const received = await sqsClient.send(
    new ReceiveMessageCommand({
      QueueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    }),
  );
  for (const message of received.Messages ?? [])
    await sqsClient.send(
      new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
  const sqs = {
    sent: sent.Successful?.map(({ Id }) => Id).sort(),
    failed: sent.Failed ?? [],
    received: received.Messages?.map(({ Body, Attributes }) => ({ Body, Attributes })).sort(
      (a, b) => String(a.Body).localeCompare(String(b.Body)),
    ),
    missingQueue: await attempt(() =>
      sqsClient.send(
        new SendMessageBatchCommand({
          QueueUrl: `${QueueUrl}-none`,
          Entries: [{ Id: 'a', MessageBody: 'x' }],
        }),
      ),
    ),
  };

  const secrets = new SecretsManagerClient({ ...common, endpoint: input.jsonServices });
  const events = new EventBridgeClient({ ...common, endpoint: input.jsonServices });
  const others = {
    secret: (await secrets.send(new GetSecretValueCommand({ SecretId: input.secretId })))
      .SecretString,
    missingSecret: await attempt(() =>
      secrets.send(new GetSecretValueCommand({ SecretId: `${input.secretId}-none` })),
    ),
    putEvents: await events
      .send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: input.busName,
              Source: 'msgbridge',
              DetailType: 'Delivery Report Received',
              Detail: '{"cliKey":"a"}',
            },
            {
              EventBusName: input.busName,
              Source: 'msgbridge',
              DetailType: 'x',
              Detail: 'not json',
            },
          ],
        }),
      )
      .then(({ FailedEntryCount, Entries }) => ({
        FailedEntryCount,
        Entries: Entries?.map(({ ErrorCode, EventId }) => ({
          ErrorCode,
          id: EventId !== undefined,
        })),
      })),
  };
  return { dynamodb, s3, sqs, others };
};
