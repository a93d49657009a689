import { maskPhonesDeep } from '../../functions/commons/helpers/mask.ts';
import { eventKeys } from '../../functions/commons/table-keys.ts';
import { LocalDateSchema } from '../../gateway/schemas/common.ts';
import { entriesOf, itemsOf, type TraceEntry } from '../../ops/trace.ts';
import { UsageError } from '../errors.ts';
import type { CommandSpec } from '../framework.ts';
import { columns } from '../output.ts';

/*
 * `msgbridge status CLIKEY…`: the gateway's status query (spec 01 §4.13, POST /msg/v1/sent) for up
 * to 10 cliKeys, each shown with what the event table holds under SEND#<cliKey>. The query needs
 * the day each message was requested (reqDt, within the last 90 days): --date gives it for all,
 * otherwise it is the KST day of the stored send record.
 */

const MAX_KEYS = 10;
const RANGE_DAYS = 90;
const KST_OFFSET_MS = 9 * 3_600_000;

/** The KST calendar day of `time`, YYYY-MM-DD. */
const kstDay = (time: Date): string =>
  new Date(time.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);

const dayOption = (value: string, now: Date): string => {
  // The gateway's own calendar check: `Date.parse` rolls 2026-09-31 over to 1 October, which
  // would pass for a day in range and reach the gateway.
  if (!LocalDateSchema.safeParse(value).success) {
    throw new UsageError(
      `--date ${value} is not a date (YYYY-MM-DD, the KST day the message was sent)`,
    );
  }
  const today = kstDay(now);
  const earliest = kstDay(new Date(now.getTime() - RANGE_DAYS * 86_400_000));
  if (value > today || value < earliest) {
    throw new UsageError(
      `--date must be within the last ${RANGE_DAYS} days (${earliest} to ${today}): the gateway answers no older query`,
    );
  }
  return value;
};

export interface StatusRow {
  readonly cliKey: string;
  readonly reqDt: string;
  /** The gateway's answer for this cliKey (phone numbers masked), or null when it named none. */
  readonly gateway: Record<string, unknown> | null;
  /** What the event table holds under SEND#<cliKey>, in time order. */
  readonly stored: readonly TraceEntry[];
}

export const statusCommand: CommandSpec = {
  summary: "the gateway's status of up to 10 cliKeys, beside their stored events",
  usage: `msgbridge status CLIKEY… [--date YYYY-MM-DD]

Asks the gateway for the status of up to ${MAX_KEYS} cliKeys (POST /msg/v1/sent: REG, ING, DONE,
OVER_DATE, INVALID_KEY, with the result code and channel) and prints, beside each, the send
records the event table holds for it (SEND#<cliKey>: the send record of a message whose smallest
cliKey it is, with the acceptances it lists, OUTCOME, UNKNOWN; a Query by key).
The query needs the day each message was requested (reqDt, KST, within the last ${RANGE_DAYS} days):
--date gives it for every cliKey; without it, it is the day of the stored send record, or today.
Read only: nothing is confirmed or taken from the running bridge. \`msgbridge trace\` shows the
reports too.`,
  options: { date: { type: 'string' } },
  positionals: { min: 1, max: MAX_KEYS, name: 'CLIKEY', missing: 'needs at least one cliKey' },
  run: async (context) => {
    const now = context.deps.now?.() ?? new Date();
    const given = context.string('date');
    const date = given === undefined ? undefined : dayOption(given, now);
    const cliKeys = [...new Set(context.positionals)];
    const target = await context.target();
    const stored = await Promise.all(
      cliKeys.map((cliKey) =>
        itemsOf(target.documents, target.tables.events, eventKeys.send(cliKey)),
      ),
    );
    const entries = stored.map((items, index) => entriesOf(items, cliKeys[index]));
    const reqDts = cliKeys.map((_, index) => {
      if (date !== undefined) return date;
      const first = entries[index]?.find((entry) => entry.at !== undefined)?.at;
      return kstDay(first === undefined ? now : new Date(first));
    });
    const answer = await target
      .gateway()
      .messaging.queryStatus(
        cliKeys.map((cliKey, index) => ({ cliKey, reqDt: reqDts[index] ?? '' })),
      );
    const byKey = new Map(answer.cliKeyLst.map((item) => [item.cliKey, item]));
    const rows: StatusRow[] = cliKeys.map((cliKey, index) => {
      const item = byKey.get(cliKey);
      return {
        cliKey,
        reqDt: reqDts[index] ?? '',
        gateway: item === undefined ? null : (maskPhonesDeep(item) as Record<string, unknown>),
        stored: entries[index] ?? [],
      };
    });
    context.out.emit(rows, () => {
      context.out.table(
        rows,
        columns({
          CLIKEY: 'cliKey',
          REQDT: 'reqDt',
          STATUS: (row) => row.gateway?.status ?? '(not answered)',
          RESULT: (row) => row.gateway?.resultCode ?? '',
          CH: (row) => row.gateway?.ch ?? '',
          MSGKEY: (row) => row.gateway?.msgKey ?? '',
        }),
      );
      for (const row of rows) {
        context.out.line('');
        context.out.line(`${row.cliKey} stored:`);
        context.out.table(
          row.stored,
          columns({
            '  TIME': (entry) => `  ${context.out.time(entry.at)}`,
            ITEM: 'sk',
            EVENT: (entry) => entry.type ?? '-',
            SUMMARY: (entry) => context.out.times(entry.summary),
          }),
          '  (nothing stored)',
        );
      }
    });
    return 0;
  },
};
