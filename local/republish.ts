import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import {
  type FailedBatch,
  planRepublish,
  type RepublishResult,
  runRepublish,
} from '../cli/republish.ts';
import { tableItems } from '../cli/republish-sources.ts';
import { DynamoDbPublishLedger } from '../functions/events/dynamodb-publish-ledger.ts';
import type { EventBus } from '../functions/events/store-ports.ts';

/** The id of a record in the local on-failure list: its sequence number. */
export const failureIdOf = (record: DynamoDBRecord): string =>
  record.dynamodb?.SequenceNumber ?? record.eventID ?? '';

/** A record of the local on-failure list as a failed batch: the record names its item itself. */
export const failureOf = (record: DynamoDBRecord): FailedBatch => {
  const pk = record.dynamodb?.Keys?.pk?.S;
  const sk = record.dynamodb?.Keys?.sk?.S;
  return {
    id: failureIdOf(record),
    description: `stream record ${failureIdOf(record)}`,
    keys: pk !== undefined && sk !== undefined ? [{ pk, sk }] : [],
  };
};

/**
 * `msgbridge events republish` in the local run's own process, for code that holds the bridge
 * (the fault-injection run, tests): the same use case as the command, with the publisher's failed
 * records taken from (and settled in) the bridge's list directly instead of over its route.
 */
export const republishLocally = async (bridge: {
  readonly bus: EventBus;
  readonly poisoned: DynamoDBRecord[];
  readonly documents: DynamoDBDocumentClient;
  readonly tables: { readonly events: string; readonly state: string };
}): Promise<RepublishResult> => {
  const ports = {
    failures: {
      list: async (): Promise<FailedBatch[]> => bridge.poisoned.map(failureOf),
      settle: async (batch: FailedBatch) => {
        const index = bridge.poisoned.findIndex((record) => failureIdOf(record) === batch.id);
        if (index >= 0) bridge.poisoned.splice(index, 1);
      },
    },
    markers: new DynamoDbPublishLedger(bridge.tables.state, bridge.documents),
    items: tableItems(bridge.documents, bridge.tables.events),
    bus: bridge.bus,
    source: 'msgbridge',
  };
  return runRepublish(await planRepublish(ports), ports);
};
