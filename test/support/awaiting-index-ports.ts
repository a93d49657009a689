import type { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';

/**
 * The ports reconcile-status reads the `awaiting-report` index of earlier releases through, all on
 * the one DynamoDB adapter, as its composition wires them.
 */
export const awaitingIndexPorts = (awaiting: DynamoDbAwaitingReports) => ({
  index: awaiting,
  ledger: awaiting,
  unknown: awaiting,
  guards: awaiting,
});
