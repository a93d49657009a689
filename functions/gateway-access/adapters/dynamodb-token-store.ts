import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, documentClient } from '../../commons/clients/dynamodb.ts';
import {
  type StoredToken,
  StoredTokenSchema,
  TOKEN_STATE_KEY,
  type TokenStore,
} from '../token-state.ts';

/** Where an unreadable token item is reported; a Powertools `Logger` fits. */
export interface TokenStoreLogger {
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface DynamoDbTokenStoreOptions {
  readonly logger: TokenStoreLogger;
  readonly client?: DynamoDBDocumentClient;
}

// "No readable item", in DynamoDB's terms: no item, or one lacking an attribute of the right type.
// Without the second half a corrupt item (which `read` reports as absent) could never be replaced.
const NO_READABLE_ITEM = [
  'attribute_not_exists(pk)',
  'NOT attribute_type(#token, :string)',
  'NOT attribute_type(#refreshToken, :string)',
  'NOT attribute_type(#accessExpiresAt, :number)',
  'NOT attribute_type(#refreshExpiresAt, :number)',
  'NOT attribute_type(#version, :number)',
  'NOT attribute_type(#updatedAt, :number)',
].join(' OR ');
const NO_READABLE_ITEM_NAMES = {
  '#token': 'token',
  '#refreshToken': 'refreshToken',
  '#accessExpiresAt': 'accessExpiresAt',
  '#refreshExpiresAt': 'refreshExpiresAt',
  '#version': 'version',
  '#updatedAt': 'updatedAt',
};

/**
 * The shared gateway token as one item of the state table (`pk = TOKEN#gateway`). Reads are
 * strongly consistent, so a container that waits for another's re-authentication sees it at once;
 * writes are compare-and-set on `version`.
 */
export class DynamoDbTokenStore implements TokenStore {
  private readonly logger: TokenStoreLogger;
  private readonly client: DynamoDBDocumentClient;

  constructor(
    private readonly tableName: string,
    options: DynamoDbTokenStoreOptions,
  ) {
    this.logger = options.logger;
    this.client = options.client ?? documentClient();
  }

  async read(): Promise<StoredToken | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: TOKEN_STATE_KEY },
        ConsistentRead: true,
      }),
    );
    if (item === undefined) return undefined;
    const parsed = StoredTokenSchema.safeParse(item);
    if (parsed.success) return parsed.data;
    // Paths and codes only: the item's values are secrets.
    this.logger.error('stored gateway token is unreadable; treating it as absent', {
      tableName: this.tableName,
      pk: TOKEN_STATE_KEY,
      problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.code}`),
    });
    return undefined;
  }

  async write(
    next: StoredToken,
    expectedVersion: number | undefined,
  ): Promise<'written' | 'stale'> {
    const condition =
      expectedVersion === undefined
        ? {
            ConditionExpression: NO_READABLE_ITEM,
            ExpressionAttributeNames: NO_READABLE_ITEM_NAMES,
            ExpressionAttributeValues: { ':string': 'S', ':number': 'N' },
          }
        : {
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': expectedVersion },
          };
    const written = await conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...StoredTokenSchema.parse(next), pk: TOKEN_STATE_KEY },
          ...condition,
        }),
      ),
    );
    return written ? 'written' : 'stale';
  }
}
