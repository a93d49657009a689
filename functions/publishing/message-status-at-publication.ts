import { deliveryReport } from '../catalogue/catalogue.ts';
import {
  MESSAGE_STATUSES,
  type MessageStatusName,
  statusAfter,
} from '../catalogue/message-status.ts';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import type { BusEntry } from './ports.ts';

/**
 * A message's status from every report of it stored in the event table, read strongly consistent
 * (`DynamoDbEventStore.messageStatus`); `undefined` when none is stored.
 */
export type ReadMessageStatus = (msgKey: string) => Promise<MessageStatusName | undefined>;

/** Each entry with its message's status at publication, or why it cannot be had (yet). */
export type StatusedEntry = { readonly entry: BusEntry } | { readonly error: unknown };

/** Status reads of one batch in flight at once (a batch of 100 reports may name 100 messages). */
const READ_CONCURRENCY = 10;

const REPORT_DETAIL_TYPE = deliveryReport.detailType;

/** A stored report's detail, its msgKey and what it says, or `undefined` for another entry. */
const reportOf = (
  entry: BusEntry,
):
  | { detail: { data: Record<string, unknown> }; msgKey: string; own: MessageStatusName }
  | undefined => {
  if (entry.DetailType !== REPORT_DETAIL_TYPE) return undefined;
  const detail = JSON.parse(entry.Detail) as { data?: Record<string, unknown> };
  const data = detail.data;
  const own = MESSAGE_STATUSES.find((status) => status === data?.messageStatus);
  if (data === undefined || typeof data.msgKey !== 'string' || own === undefined) return undefined;
  return { detail: { ...detail, data }, msgKey: data.msgKey, own };
};

/**
 * Sets `data.messageStatus` of every "Delivery Report Received" entry to the message's status when
 * the event is published: this report and every report stored before it. That is the highest rank over every report of the
 * message in the event table, and at least the report's own (its stored detail's). One read per
 * distinct msgKey, shared by the entries that name it; other entries pass unchanged. An entry
 * whose read failed is answered as its `error`: it must not go out without its status.
 *
 * Why a report never unsays a delivery: the read runs after the report was stored and is
 * strongly consistent, so it sees this report and every report stored before it; a report stored
 * after a delivery says `delivered`, whatever order Lambda hands the records over in. Lambda keeps
 * the order of one item's records only (Lambda developer guide, "Using AWS Lambda with Amazon
 * DynamoDB", https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, concurrent batches per
 * shard; read 2026-12-07), and a message's reports are several items: a report stored before a
 * delivery and published after it in the shard's other batch may carry its status as it was. That
 * is no regression for a subscriber, who must keep the highest status per msgKey anyway, since
 * EventBridge keeps no order between events. `msgbridge events republish` reads the same way.
 *
 * Cost: one strongly consistent Query per distinct msgKey of a batch, 1 read unit per 4 KB of the
 * message's report items read (keys only returned, which does not lessen the units), against the
 * writes a per-message status kept beside the reports would take on every report.
 *
 * The detail grows by at most 3 bytes (`failed` to `delivered`), well inside the 1 KiB that
 * item-size.ts's detail budget leaves of PutEvents' entry limit.
 */
export const withStatusesAtPublication = async (
  entries: readonly BusEntry[],
  read: ReadMessageStatus,
): Promise<StatusedEntry[]> => {
  const reports = entries.map(reportOf);
  const msgKeys = [...new Set(reports.flatMap((report) => (report ? [report.msgKey] : [])))];
  const answers = await mapWithConcurrency(msgKeys, READ_CONCURRENCY, async (msgKey) => {
    try {
      return { status: await read(msgKey) };
    } catch (error) {
      return { error };
    }
  });
  const statuses = new Map(msgKeys.map((msgKey, index) => [msgKey, answers[index]]));
  return entries.map((entry, index) => {
    const report = reports[index];
    if (report === undefined) return { entry };
    const found = statuses.get(report.msgKey);
    if (found === undefined || 'error' in found) return { error: found?.error };
    const status = statusAfter(found.status, report.own);
    if (status === report.own) return { entry };
    const detail = { ...report.detail, data: { ...report.detail.data, messageStatus: status } };
    return { entry: { ...entry, Detail: JSON.stringify(detail) } };
  });
};
