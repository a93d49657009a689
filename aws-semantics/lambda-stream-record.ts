import type {
  _Record,
  AttributeValue as StreamAttributeValue,
} from '@aws-sdk/client-dynamodb-streams';
import type {
  DynamoDBRecord,
  AttributeValue as LambdaAttributeValue,
  StreamRecord as LambdaStreamRecord,
} from 'aws-lambda';

/*
 * A DynamoDB Streams record as the Streams API returns it, turned into the record Lambda hands a
 * stream handler. The local stream poller and `msgbridge republish` both feed handlers with it.
 */

/** The record as Lambda hands it over: DynamoDB JSON, binary as base64, times in epoch seconds. */
export const toLambdaRecord = (record: _Record, streamArn: string): DynamoDBRecord => {
  const source = record.dynamodb;
  const dynamodb: LambdaStreamRecord = {};
  if (source?.ApproximateCreationDateTime !== undefined) {
    dynamodb.ApproximateCreationDateTime = source.ApproximateCreationDateTime.getTime() / 1000;
  }
  if (source?.Keys !== undefined) dynamodb.Keys = toLambdaItem(source.Keys);
  if (source?.NewImage !== undefined) dynamodb.NewImage = toLambdaItem(source.NewImage);
  if (source?.OldImage !== undefined) dynamodb.OldImage = toLambdaItem(source.OldImage);
  if (source?.SequenceNumber !== undefined) dynamodb.SequenceNumber = source.SequenceNumber;
  if (source?.SizeBytes !== undefined) dynamodb.SizeBytes = source.SizeBytes;
  if (source?.StreamViewType !== undefined) dynamodb.StreamViewType = source.StreamViewType;
  const converted: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    dynamodb,
    eventSourceARN: streamArn,
  };
  // Present only on deletions by TTL; Lambda spells the fields in lower camel case.
  if (record.userIdentity !== undefined) {
    converted.userIdentity = {
      type: record.userIdentity.Type,
      principalId: record.userIdentity.PrincipalId,
    };
  }
  return converted;
};

const toLambdaItem = (
  item: Record<string, StreamAttributeValue>,
): Record<string, LambdaAttributeValue> =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, toLambdaValue(value)]));

const toLambdaValue = (value: StreamAttributeValue): LambdaAttributeValue => {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.B !== undefined) return { B: toBase64(value.B) };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(toBase64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  if (value.M !== undefined) return { M: toLambdaItem(value.M) };
  throw new Error(`Unknown DynamoDB attribute type: ${Object.keys(value).join(', ')}`);
};

const toBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
