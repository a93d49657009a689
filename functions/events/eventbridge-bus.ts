import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { BusEntry, BusEntryResult, EventBus } from './publish.ts';

// One client per container; it honours AWS_ENDPOINT_URL_EVENTBRIDGE.
let sharedClient: EventBridgeClient | undefined;
const client = (): EventBridgeClient => {
  sharedClient ??= new EventBridgeClient({});
  return sharedClient;
};

/** `PutEvents` on one bus, with the per-entry results read every time. */
export class EventBridgeBus implements EventBus {
  constructor(
    private readonly busName: string,
    private readonly eventBridge: EventBridgeClient = client(),
  ) {}

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    const answer = await this.eventBridge.send(
      new PutEventsCommand({
        Entries: entries.map((entry) => ({ ...entry, EventBusName: this.busName })),
      }),
    );
    return entries.map((_, index): BusEntryResult => {
      const result = answer.Entries?.[index];
      if (result?.EventId && !result.ErrorCode) return { ok: true };
      return {
        ok: false,
        errorCode: result?.ErrorCode ?? 'MissingResult',
        errorMessage: result?.ErrorMessage ?? 'PutEvents returned no result for this entry',
      };
    });
  }
}
