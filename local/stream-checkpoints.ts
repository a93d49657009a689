/**
 * Where a local stream consumer left off, kept in the local run's state table so that a restarted
 * `npm start` resumes the event table's stream the way Lambda's event source mapping resumes
 * after a deployment: after the last settled record of each shard. Starting at TRIM_HORIZON again
 * would publish the last run's records a second time; starting at LATEST would skip records
 * stored just before the stop and never published.
 *
 * The checkpoint lives in the same DynamoDB Local database as the stream it describes, so deleting
 * the data directory forgets both together. It is keyed by stream ARN: a table created anew has a
 * new stream and starts at its beginning.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

/** The state-table key of one consumer's checkpoints; local only, never deployed. */
export const checkpointKey = (consumer: string): string => `LOCAL#STREAM_CHECKPOINT#${consumer}`;

export interface StreamCheckpoints {
  /** Shard id → sequence number of the last settled record, for the given stream. */
  load(): Promise<ReadonlyMap<string, string>>;
  /** Records that everything in `shardId` up to `sequenceNumber` is settled. */
  save(shardId: string, sequenceNumber: string): Promise<void>;
}

/** The checkpoints of `consumer` on `streamArn`, in the state table `tableName`. */
export const stateTableCheckpoints = (
  documents: DynamoDBDocumentClient,
  tableName: string,
  consumer: string,
  streamArn: string,
): StreamCheckpoints => {
  const key = { pk: checkpointKey(consumer) };
  return {
    load: async () => {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      );
      // Checkpoints of an earlier stream (the table was deleted and created again) do not apply.
      if (item?.streamArn !== streamArn || typeof item.shards !== 'object') return new Map();
      return new Map(
        Object.entries(item.shards as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
    },
    save: async (shardId, sequenceNumber) => {
      // One map per consumer; a new stream ARN replaces the map instead of merging into it.
      await documents
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET #shards.#shard = :sequence',
            ConditionExpression: 'streamArn = :stream',
            ExpressionAttributeNames: { '#shards': 'shards', '#shard': shardId },
            ExpressionAttributeValues: { ':sequence': sequenceNumber, ':stream': streamArn },
          }),
        )
        .catch(async (error: unknown) => {
          if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException')
            throw error;
          await documents.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              UpdateExpression: 'SET streamArn = :stream, #shards = :shards',
              ExpressionAttributeNames: { '#shards': 'shards' },
              ExpressionAttributeValues: {
                ':stream': streamArn,
                ':shards': { [shardId]: sequenceNumber },
              },
            }),
          );
        });
    },
  };
};
