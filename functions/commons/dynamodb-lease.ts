import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, documentClient } from './clients/dynamodb.ts';
import type { Lease } from './lease.ts';
import { stateKeys } from './table-keys.ts';

/** Leases as `pk = LEASE#<name>` items of the state table, with conditional writes on the holder and expiry. */
export class DynamoDbLease implements Lease {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: stateKeys.lease(name),
            owner,
            leaseUntil: now + ttlMs,
            expiresAt: Math.ceil((now + ttlMs) / 1000) + 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': now, ':owner': owner },
        }),
      ),
    );
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: stateKeys.lease(name) },
          UpdateExpression: 'SET leaseUntil = :until, expiresAt = :expiresAt',
          ConditionExpression: '#owner = :owner AND leaseUntil >= :now',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':until': now + ttlMs,
            ':expiresAt': Math.ceil((now + ttlMs) / 1000) + 86_400,
            ':owner': owner,
            ':now': now,
          },
        }),
      ),
    );
  }

  async release(name: string, owner: string): Promise<void> {
    await conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: stateKeys.lease(name) },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }
}
