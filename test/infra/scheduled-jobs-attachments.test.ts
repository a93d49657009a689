import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  compileFilterCriteria,
  type FilterCriteria,
} from '../../aws-semantics/lambda-event-filter.ts';
import { ATTACHMENT_RECORD_PATTERN } from '../../functions/attachments/stream-filter.ts';
import {
  defaults,
  polling,
  type Statement,
  type Synthesized,
  synthJobStacks,
} from '../support/jobs-stack.ts';

describe('scheduled jobs and inbound attachments infrastructure', () => {
  synthJobStacks();

  describe('attachment bucket', () => {
    it('blocks all public access, refuses requests without TLS and encrypts with the data key', () => {
      const { template, id, stack } = defaults;
      const bucket = stack.inboundAttachments.bucket;

      const properties = defaults.resource(bucket).Properties;

      expect(properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'] },
            },
          },
        ],
      });
      expect(properties.VersioningConfiguration).toBeUndefined();
      expect(properties.OwnershipControls).toEqual({
        Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
      });
      const policies = Object.values(
        template.findResources('AWS::S3::BucketPolicy', {
          Properties: { Bucket: { Ref: id(bucket) } },
        }),
      );
      expect(policies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        [
          {
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: [
              { 'Fn::GetAtt': [id(bucket), 'Arn'] },
              { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id(bucket), 'Arn'] }, '/*']] },
            ],
          },
        ],
      ]);
    });

    it.each([
      [
        'expires attachments after 365 days and aborts abandoned uploads after a day',
        () => defaults,
        { ExpirationInDays: 365 },
      ],
      [
        'takes the expiry and the move to Standard-IA from props',
        () => polling,
        {
          ExpirationInDays: 730,
          Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 90 }],
        },
      ],
    ])('%s', (_, synthesized, expiry) => {
      const s = synthesized();
      const properties = s.resource(s.stack.inboundAttachments.bucket).Properties;

      expect(properties.LifecycleConfiguration).toEqual({
        Rules: [
          {
            Id: 'attachments',
            Status: 'Enabled',
            ...expiry,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          },
        ],
      });
    });

    it('keeps the bucket and its access logs when the stack is deleted', () => {
      const { bucket, accessLogsBucket } = defaults.stack.inboundAttachments;

      for (const each of [bucket, accessLogsBucket]) {
        const resource = defaults.resource(each);
        expect(resource.DeletionPolicy).toBe('Retain');
        expect(resource.UpdateReplacePolicy).toBe('Retain');
      }
    });

    it('logs requests into a private log bucket that only S3 log delivery for it may write to', () => {
      const { template, id, stack } = defaults;
      const { bucket, accessLogsBucket } = stack.inboundAttachments;

      const logs = defaults.resource(accessLogsBucket).Properties;
      const policy = Object.values(
        template.findResources('AWS::S3::BucketPolicy', {
          Properties: { Bucket: { Ref: id(accessLogsBucket) } },
        }),
      )[0]?.Properties.PolicyDocument.Statement as Statement[];

      expect(defaults.resource(bucket).Properties.LoggingConfiguration).toEqual({
        DestinationBucketName: { Ref: id(accessLogsBucket) },
        LogFilePrefix: 'attachments/',
      });
      expect(logs.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicPolicy: true });
      expect(logs.AccessControl).toBeUndefined();
      expect(logs.LifecycleConfiguration).toEqual({
        Rules: [{ Id: 'expire-access-logs', Status: 'Enabled', ExpirationInDays: 365 }],
      });
      expect(policy).toContainEqual({
        Effect: 'Allow',
        Principal: { Service: 'logging.s3.amazonaws.com' },
        Action: 's3:PutObject',
        Resource: {
          'Fn::Join': ['', [{ 'Fn::GetAtt': [id(accessLogsBucket), 'Arn'] }, '/attachments/*']],
        },
        Condition: {
          ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [id(bucket), 'Arn'] } },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      });
      expect(policy).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    });

    it('outputs the bucket name', () => {
      const outputs = defaults.template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(outputs.AttachmentBucketName?.Value).toEqual({
        Ref: defaults.id(defaults.stack.inboundAttachments.bucket),
      });
    });
  });

  describe('attachments stream', () => {
    const mappingsOf = ({ template, id, stack }: Synthesized) =>
      Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { FunctionName: { Ref: id(stack.inboundAttachments.fetchAttachments) } },
        }),
      ).map((mapping) => mapping.Properties);

    it('reads the event table stream in batches of 10, bisecting, with 5 retries and partial failures', () => {
      const { id, stack } = defaults;

      expect(mappingsOf(defaults)).toEqual([
        {
          FunctionName: { Ref: id(stack.inboundAttachments.fetchAttachments) },
          EventSourceArn: { 'Fn::GetAtt': [id(stack.eventTable), 'StreamArn'] },
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 10,
          ParallelizationFactor: 10,
          BisectBatchOnFunctionError: true,
          MaximumRetryAttempts: 5,
          MaximumRecordAgeInSeconds: 86_400,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          FilterCriteria: { Filters: [{ Pattern: expect.any(String) }] },
          DestinationConfig: {
            OnFailure: {
              Destination: { 'Fn::GetAtt': [id(stack.inboundAttachments.onFailureQueue), 'Arn'] },
            },
          },
        },
      ]);
    });

    it('passes only inserted inbound messages with at least one attachment, as Lambda filters', () => {
      const [mapping, ...others] = mappingsOf(defaults);
      expect(others).toEqual([]);
      if (!mapping) throw new Error('no event source mapping');
      // Evaluated as Lambda does, over records as the stream delivers them (numbers as {"N": "2"}).
      const passes = compileFilterCriteria(mapping.FilterCriteria as FilterCriteria, 'dynamodb');
      const record = (eventName: string, image: Record<string, unknown>) =>
        ({
          eventName,
          eventSource: 'aws:dynamodb',
          dynamodb: { NewImage: marshall(image), StreamViewType: 'NEW_IMAGE' },
        }) as unknown as DynamoDBRecord;

      expect(passes(record('INSERT', { kind: 'mo', attachmentCount: 2 }))).toBe(true);
      expect(passes(record('INSERT', { kind: 'mo', attachmentCount: 1 }))).toBe(true);
      expect(passes(record('INSERT', { kind: 'mo', attachmentCount: 0 }))).toBe(false);
      expect(passes(record('INSERT', { kind: 'mo' }))).toBe(false);
      expect(passes(record('INSERT', { kind: 'report', attachmentCount: 2 }))).toBe(false);
      expect(passes(record('MODIFY', { kind: 'mo', attachmentCount: 2 }))).toBe(false);
      // The deployed filter is the shared pattern, and nothing else.
      const patterns = (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map(
        (filter) => JSON.parse(filter.Pattern),
      );
      expect(patterns).toEqual([ATTACHMENT_RECORD_PATTERN]);
    });

    it('keeps failed batches in an encrypted, TLS-only queue for 14 days', () => {
      const { template, id, stack } = defaults;
      const queue = stack.inboundAttachments.onFailureQueue;

      expect(defaults.resource(queue).Properties).toMatchObject({
        KmsMasterKeyId: { 'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'] },
        MessageRetentionPeriod: 14 * 86_400,
      });
      const policies = Object.values(
        template.findResources('AWS::SQS::QueuePolicy', {
          Properties: { Queues: [{ Ref: id(queue) }] },
        }),
      );
      expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]);
    });
  });
});
