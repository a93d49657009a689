import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidEventPatternError } from '../../aws-semantics/event-pattern.ts';
import {
  compileFilterCriteria,
  type FilterCriteria,
} from '../../aws-semantics/lambda-event-filter.ts';
import { ATTACHMENT_RECORD_PATTERN } from '../../functions/attachments/stream-filter.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../../functions/event-table/stream-filter.ts';

const criteria = (...patterns: unknown[]): FilterCriteria => ({
  Filters: patterns.map((pattern) => ({ Pattern: JSON.stringify(pattern) })),
});

/** A stream record as Lambda delivers it: the new image in DynamoDB JSON. */
type StreamImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

const streamRecord = (eventName: string, image: Record<string, unknown>): DynamoDBRecord => ({
  eventID: 'e1',
  eventName: eventName as DynamoDBRecord['eventName'],
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ap-northeast-2',
  dynamodb: {
    ApproximateCreationDateTime: 1_764_000_000,
    Keys: marshall({ pk: 'MO#1', sk: 'MO' }) as StreamImage,
    NewImage: marshall(image) as StreamImage,
    SequenceNumber: '100',
    SizeBytes: 120,
    StreamViewType: 'NEW_IMAGE',
  },
  eventSourceARN: 'arn:aws:dynamodb:ap-northeast-2:123456789012:table/t/stream/x',
});

const sqsRecord = (body: string): SQSRecord => ({
  messageId: 'm1',
  receiptHandle: 'r1',
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '1764000000000',
    SenderId: 'AIDA',
    ApproximateFirstReceiveTimestamp: '1764000000001',
  },
  messageAttributes: {},
  md5OfBody: 'x',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:ap-northeast-2:123456789012:q',
  awsRegion: 'ap-northeast-2',
});

describe('the fetch-attachments filter, as Lambda evaluates it', () => {
  const accepts = compileFilterCriteria(criteria(ATTACHMENT_RECORD_PATTERN), 'dynamodb');

  it('takes inserts of inbound messages with attachments, whose count a stream delivers as {"N": "2"}', () => {
    const record = streamRecord('INSERT', { kind: 'mo', attachmentCount: 2 });
    expect(record.dynamodb?.NewImage?.attachmentCount).toEqual({ N: '2' });
    expect(accepts(record)).toBe(true);
  });

  it('leaves out other records', () => {
    expect(accepts(streamRecord('MODIFY', { kind: 'mo', attachmentCount: 2 }))).toBe(false);
    expect(accepts(streamRecord('INSERT', { kind: 'report', attachmentCount: 2 }))).toBe(false);
    expect(accepts(streamRecord('INSERT', { kind: 'mo', attachmentCount: 0 }))).toBe(false);
    expect(accepts(streamRecord('INSERT', { kind: 'mo' }))).toBe(false);
  });

  it('a numeric rule on the count would match no record at all (the pattern deployed before)', () => {
    const numeric = compileFilterCriteria(
      criteria({
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: { kind: { S: ['mo'] }, attachmentCount: { N: [{ numeric: ['>', 0] }] } },
        },
      }),
      'dynamodb',
    );
    expect(numeric(streamRecord('INSERT', { kind: 'mo', attachmentCount: 2 }))).toBe(false);
  });
});

describe('the publish-events filter, as Lambda evaluates it', () => {
  const accepts = compileFilterCriteria(criteria(PUBLISHABLE_RECORD_PATTERN), 'dynamodb');

  it('takes inserts of items that carry a detail-type, and nothing else', () => {
    expect(accepts(streamRecord('INSERT', { detailType: 'Delivery Report Received' }))).toBe(true);
    expect(accepts(streamRecord('INSERT', { kind: 'send' }))).toBe(false);
    expect(accepts(streamRecord('MODIFY', { detailType: 'Delivery Report Received' }))).toBe(false);
    expect(accepts(streamRecord('REMOVE', { detailType: 'Delivery Report Received' }))).toBe(false);
  });
});

describe('filter criteria', () => {
  it('pass every record without filters, and any record one of several filters takes', () => {
    expect(compileFilterCriteria(undefined, 'dynamodb')(streamRecord('REMOVE', {}))).toBe(true);
    const either = compileFilterCriteria(
      criteria({ eventName: ['INSERT'] }, { eventName: ['REMOVE'] }),
      'dynamodb',
    );
    expect(either(streamRecord('REMOVE', {}))).toBe(true);
    expect(either(streamRecord('MODIFY', {}))).toBe(false);
  });

  it('are refused above ten filters, or with a pattern that is not valid', () => {
    const eleven = criteria(...Array.from({ length: 11 }, () => ({ eventName: ['INSERT'] })));
    expect(() => compileFilterCriteria(eleven, 'sqs')).toThrow(InvalidEventPatternError);
    expect(() => compileFilterCriteria({ Filters: [{ Pattern: '{' }] }, 'sqs')).toThrow(
      InvalidEventPatternError,
    );
    expect(() => compileFilterCriteria({ Filters: [{}] }, 'sqs')).toThrow(InvalidEventPatternError);
  });
});

describe('SQS bodies: the guide table of body format against pattern format', () => {
  const plain = sqsRecord('plain text');
  const json = sqsRecord('{"kind":"send","count":3}');

  it('plain body, plain-string pattern: filters on the string', () => {
    const accepts = compileFilterCriteria(criteria({ body: ['plain text'] }), 'sqs');
    expect(accepts(plain)).toBe(true);
    expect(accepts(sqsRecord('other text'))).toBe(false);
  });

  it('plain body, no body pattern: filters on the metadata only', () => {
    const accepts = compileFilterCriteria(criteria({ eventSource: ['aws:sqs'] }), 'sqs');
    expect(accepts(plain)).toBe(true);
    expect(accepts(json)).toBe(true);
  });

  it('plain body, JSON pattern: the message is dropped', () => {
    const accepts = compileFilterCriteria(criteria({ body: { kind: [{ exists: false }] } }), 'sqs');
    expect(accepts(plain)).toBe(false);
  });

  it('JSON body, plain-string pattern: the message is dropped', () => {
    const accepts = compileFilterCriteria(criteria({ body: ['{"kind":"send","count":3}'] }), 'sqs');
    expect(accepts(json)).toBe(false);
  });

  it('JSON body, JSON pattern: filters on the body, numbers as JSON numbers', () => {
    const accepts = compileFilterCriteria(
      criteria({ body: { kind: ['send'], count: [{ numeric: ['>', 2] }] } }),
      'sqs',
    );
    expect(accepts(json)).toBe(true);
    expect(accepts(sqsRecord('{"kind":"send","count":"3"}'))).toBe(false);
  });
});
