import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbPublishLedger } from '../functions/publishing/adapters/dynamodb-publish-ledger.ts';
import { storedMessageStatus } from '../functions/publishing/adapters/stored-message-status.ts';
import type { EventBus } from '../functions/publishing/ports.ts';
import { planRepublish, type RepublishResult, runRepublish } from '../ops/republish.ts';
import { queuePublishFailures, tableItems } from '../ops/republish-sources.ts';

/**
 * `msgbridge events republish` in the process that holds the local run (the fault-injection run,
 * tests): the same use case and the same sources as the command on a deployed stack, the
 * publisher's on-failure queue and the table's stream, with the bus given.
 */
export const republishLocally = async (bridge: {
  readonly sqs: SQSClient;
  readonly streams: DynamoDBStreamsClient;
  readonly documents: DynamoDBDocumentClient;
  readonly tables: { readonly events: string; readonly state: string };
  readonly onFailureQueueUrl: string;
  readonly bus: EventBus;
}): Promise<RepublishResult> => {
  const failures = queuePublishFailures({
    sqs: bridge.sqs,
    queueUrl: bridge.onFailureQueueUrl,
    streams: bridge.streams,
  });
  const ports = {
    failures,
    markers: new DynamoDbPublishLedger(bridge.tables.state, bridge.documents),
    items: tableItems(bridge.documents, bridge.tables.events),
    bus: bridge.bus,
    source: 'msgbridge',
    messageStatus: storedMessageStatus(bridge.tables.events, bridge.documents),
  };
  try {
    return await runRepublish(await planRepublish(ports), ports);
  } finally {
    await failures.release();
  }
};
