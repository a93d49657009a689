import { OperationError } from '../../ops/errors.ts';
import { findByPhone, phoneDigits } from '../../ops/phone-search.ts';
import { traceKey } from '../../ops/trace.ts';
import { UsageError } from '../errors.ts';
import type { CommandSpec } from '../framework.ts';
import { columns } from '../output.ts';

export const traceCommand: CommandSpec = {
  summary: 'every stored item and event of one message, in time order',
  usage: `msgbridge trace KEY [--scan]
       msgbridge trace --phone NUMBER

Prints what the event table holds for one message, in time order. KEY is a cliKey, a msgKey or
a moKey; the command reads by key only (DynamoDB Query):
  SEND#<cliKey>     the send records: MESSAGE (the send record of the message whose smallest
                    cliKey this is: its claim and accepted recipients), OUTCOME (an outcome
                    event: rejected, scheduled, accepted where published), UNKNOWN
  REPORT#<msgKey>   the delivery reports (RESULT#<code>#<channel>); for a cliKey, its msgKey
                    comes from its acceptance; for a msgKey, its cliKey from a report
  MO#<moKey>        an inbound message and its attachments (ATTACHMENT#<n>)
A message's send record is kept under its smallest cliKey only, quarantined and unrecognised
bodies are keyed by their hash, and a msgKey that has no report names no cliKey: --scan also
reads the whole table (a DynamoDB Scan, slow and billed per item read) for send records that
list KEY or carry it as msgKey, and quarantined bodies that contain KEY.
Phone numbers are masked. Items leave the table after the retention period (TTL).
--phone NUMBER (entered in full, e.g. 010-1234-5678) lists the messages whose stored events name
that number (sends, reports, inbound messages), newest first, with the key to trace each by. The
table is not keyed by number, so this is a Scan that reads every item's event (billed per item
read); it stops after 100,000 items and says so.`,
  options: { scan: { type: 'boolean' }, phone: { type: 'string' } },
  positionals: { min: 0, max: 1, name: 'KEY' },
  run: async (context) => {
    const phone = context.string('phone');
    const key = context.positionals[0];
    if (phone !== undefined && key !== undefined) {
      throw new UsageError('give a KEY or --phone NUMBER, not both');
    }
    if (phone !== undefined) {
      const digits = phoneDigits(phone);
      if (digits === undefined) {
        throw new UsageError('--phone must be a phone number in full, 8 to 12 digits');
      }
      const target = await context.target();
      const found = await findByPhone(target.documents, target.tables.events, digits);
      if (found.matches.length === 0) {
        throw new OperationError(
          `no stored event names ${digits} on the ${target.describe()} (${found.scanned} items read${found.complete ? '' : ', stopped before the end of the table'})`,
        );
      }
      context.out.emit({ phone: digits, ...found }, () => {
        context.out.table(
          found.matches,
          columns({
            TIME: (match) => context.out.time(match.at),
            'FOUND BY': (match) => match.kind,
            KEY: (match) => match.key,
            EVENT: (match) => match.type ?? '-',
          }),
        );
        if (!found.complete) context.out.line(`stopped after ${found.scanned} items`);
      });
      return 0;
    }
    if (key === undefined) throw new UsageError('needs a cliKey, msgKey or moKey');
    const target = await context.target();
    const trace = await traceKey(target.documents, target.tables.events, key, {
      scan: context.flag('scan'),
    });
    if (trace.entries.length === 0) {
      throw new OperationError(
        `nothing stored for ${key} on the ${target.describe()}${context.flag('scan') ? '' : ' (--scan also searches quarantined bodies)'}`,
      );
    }
    context.out.emit(trace, () => {
      const keys = [
        trace.cliKey === undefined ? undefined : `cliKey ${trace.cliKey}`,
        trace.msgKey === undefined ? undefined : `msgKey ${trace.msgKey}`,
        trace.moKey === undefined ? undefined : `moKey ${trace.moKey}`,
      ].filter((part) => part !== undefined);
      if (keys.length > 0) context.out.line(keys.join(', '));
      context.out.table(
        trace.entries,
        columns({
          TIME: (entry) => context.out.time(entry.at),
          ITEM: (entry) => `${entry.pk} ${entry.sk}`,
          EVENT: (entry) => entry.type ?? '-',
          SUMMARY: (entry) => context.out.times(entry.summary),
        }),
      );
    });
    return 0;
  },
};
