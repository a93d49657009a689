import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * Grants item actions on a table itself, never on its indexes: `table.grant()` also adds
 * `<table>/index/*`, which none of msgbridge's writers need (and cdk-nag rightly flags).
 */
export const grantTableItemActions = (
  table: ITableV2,
  grantee: IGrantable,
  ...actions: string[]
): void => {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions, resources: [table.tableArn] }),
  );
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
};
