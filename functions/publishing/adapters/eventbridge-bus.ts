import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridgeClient } from '../../commons/clients/eventbridge.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../ports.ts';

/** `PutEvents` on one bus, with the per-entry results read every time. */
export class EventBridgeBus implements EventBus {
  constructor(
    private readonly busName: string,
    private readonly eventBridge: EventBridgeClient = eventBridgeClient(),
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
