/*
 * The target of a rule for delivery reports: it acts on `messageStatus`, the message's status (a
 * report that comes after a delivery still says `delivered`), not on one report's `delivered`.
 * `detail.metadata.id` is stable across redeliveries and replays: de-duplicate on it before acting.
 */
import { isDeliveryReportReceived } from 'msgbridge/events';

export const handler = async (event: unknown): Promise<string | undefined> => {
  if (!isDeliveryReportReceived(event)) return undefined;
  const { metadata, data } = event.detail;
  if (data.messageStatus !== 'failed') return undefined;
  return `${metadata.id}: ${data.cliKey} was not delivered (${data.resultCode})`;
};
