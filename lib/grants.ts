import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * What every caller of a table under a customer managed key needs on the key, reads and writes
 * alike: DynamoDB decrypts the table's own data key with the caller's permission when the caller
 * accesses the table (a PutItem without kms:Decrypt fails with "KMS key access denied"). Items are
 * encrypted under that table key, so no Encrypt or GenerateDataKey is needed once the table
 * exists. kms:DescribeKey is what CDK's own table read and stream grants add beside it.
 */
const TABLE_KEY_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'] as const;

const grantTableKey = (table: ITableV2, grantee: IGrantable): void => {
  table.encryptionKey?.grant(grantee, ...TABLE_KEY_ACTIONS);
};

/**
 * Grants item actions on a table itself, never on its indexes: `table.grant()` also adds
 * `<table>/index/*`, which none of msgbridge's writers need (and cdk-nag rightly flags). A table
 * under a customer managed key also gets the key actions every caller needs.
 */
export const grantTableItemActions = (
  table: ITableV2,
  grantee: IGrantable,
  ...actions: string[]
): void => {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions, resources: [table.tableArn] }),
  );
  grantTableKey(table, grantee);
};

/**
 * Grants `dynamodb:Query` on one named index of a table, and on nothing else: the only index
 * access msgbridge grants is `reconcile-status` reading `awaiting-report`.
 */
export const grantIndexQuery = (table: ITableV2, grantee: IGrantable, indexName: string): void => {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${table.tableArn}/index/${indexName}`],
    }),
  );
  grantTableKey(table, grantee);
};

/**
 * Writing objects by a streamed (multipart) upload and reading them back: `PutObject` (also every
 * multipart call that creates or completes an upload), `AbortMultipartUpload`,
 * `ListMultipartUploadParts` and `GetObject`.
 */
export const OBJECT_UPLOAD_ACTIONS = [
  's3:PutObject',
  's3:AbortMultipartUpload',
  's3:ListMultipartUploadParts',
  's3:GetObject',
] as const;
