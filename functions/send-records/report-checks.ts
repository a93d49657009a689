import { STATUS_QUERY_MAX_KEYS } from '../../gateway/schemas/reports.ts';
import * as z from '../../gateway/schemas/zod.ts';
import { SEND_CHANNELS } from '../send-contract/channels.ts';
import type { ReportCheck } from './ports.ts';

/*
 * The report-check queue: accepted recipients waiting for their delivery report. The sender puts
 * one message per attempt's acceptances on it (at most 10 recipients, one status query); the queue
 * delays each by up to 15 minutes, and reconcile-status, invoked by the queue's event source,
 * looks for the reports of the due ones, asks the gateway about the missing ones, and finishes a
 * check once every recipient in it is settled. A check received before it is due, or with
 * recipients still pending (REG, ING), is put back as a new message delayed until its next look,
 * so no check waits received and unfinished (SQS's in-flight limit is no ceiling). This replaces
 * a time-keyed index entry per recipient and the write that took it off the index again
 * (docs/performance.md).
 */

/** A check as it travels on the queue (`v` is the shape's version). */
export const ReportCheckSchema = z.strictObject({
  v: z.literal(1),
  channel: z.enum(SEND_CHANNELS),
  acceptedAt: z.iso.datetime({ offset: true }),
  recipients: z
    .array(
      z.strictObject({
        cliKey: z.string().check(z.minLength(1), z.maxLength(30)),
        msgKey: z.optional(z.string().check(z.minLength(1))),
      }),
    )
    .check(z.minLength(1), z.maxLength(STATUS_QUERY_MAX_KEYS)),
});

/** The queue message body of a check. */
export const reportCheckBody = (check: ReportCheck): string =>
  JSON.stringify({
    v: 1,
    channel: check.channel,
    acceptedAt: check.acceptedAt,
    recipients: check.recipients,
  });

/**
 * A check as read from the queue: parsed, or why it could not be. `id` finishes this receipt of
 * it; `messageId` is the same on every receipt.
 */
export type ReceivedCheck =
  | {
      readonly id: string;
      readonly messageId: string;
      readonly receiveCount: number;
      readonly check: ReportCheck;
    }
  | {
      readonly id: string;
      readonly messageId: string;
      readonly receiveCount: number;
      readonly problem: string;
      /** The body as it arrived (at most the first 1,000 characters, for the log). */
      readonly body: string;
    };

/** Reads a check's queue message body. */
export const parseReportCheck = (
  body: string,
): { readonly check: ReportCheck } | { readonly problem: string } => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = ReportCheckSchema.safeParse(json);
  if (!parsed.success) return { problem: z.prettifyError(parsed.error) };
  const { channel, acceptedAt, recipients } = parsed.data;
  return {
    check: {
      channel,
      acceptedAt,
      recipients: recipients.map(({ cliKey, msgKey }) =>
        msgKey ? { cliKey, msgKey } : { cliKey },
      ),
    },
  };
};

/** The report-check queue as reconcile-status reads it. */
export interface ReportCheckQueue {
  /**
   * Up to `max` checks that are visible now. Each stays invisible to later receives for the
   * adapter's visibility timeout (longer than a run), then comes back unless it was `finish`ed.
   */
  receive(max: number): Promise<readonly ReceivedCheck[]>;
  /** Deletes finished checks (every recipient settled, or past the horizon). */
  finish(ids: readonly string[]): Promise<void>;
  /**
   * Queues each entry's check anew, `delaySeconds` (1–900) from now, then finishes the received
   * one; answers how many were put back. An entry that could not be queued is not finished: it
   * comes back whole after its visibility timeout.
   */
  putBack(entries: readonly PutBackEntry[]): Promise<number>;
}

/** A received check to queue anew (`id` its receipt), `delaySeconds` (1–900) from now. */
export interface PutBackEntry {
  readonly id: string;
  readonly check: ReportCheck;
  readonly delaySeconds: number;
}
