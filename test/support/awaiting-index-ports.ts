import type { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';

/**
 * The ports reconcile-status reads the event table through (stored reports and statuses, the
 * unknown outcomes' index, report guards), all on the one DynamoDB adapter, as its composition
 * wires them.
 */
export const awaitingIndexPorts = (awaiting: DynamoDbAwaitingReports) => ({
  ledger: awaiting,
  unknown: awaiting,
  guards: awaiting,
});
