import { maskPhone } from '../../functions/commons/helpers/mask.ts';
import {
  type CommandContext,
  type CommandSpec,
  flagOptions,
  type GroupSpec,
  valueOptions,
} from '../framework.ts';
import { type Cell, columns, gatewayTimes } from '../output.ts';

/*
 * `msgbridge optout …`: the gateway's opt-out (080) list, spec 01 §4.15. These endpoints take the
 * `apiKey` header, so they read the gateway credentials. The entries are phone numbers the
 * operator asked for: printed in full only with --json or --reveal.
 */

const REVEAL_NOTE =
  'Phone numbers are masked (010****5678) unless --reveal is given; --json prints them in full.';

const show = (context: CommandContext, value: string | null | undefined): string =>
  value === null || value === undefined || value === '*' || context.flag('reveal')
    ? (value ?? '')
    : maskPhone(value);

/** `rows` in the columns `cells`, the `UPDATED` one the gateway's date-time; `empty` if none. */
const table = <Row>(
  context: CommandContext,
  rows: readonly Row[],
  empty: string,
  cells: Readonly<Record<string, Cell<Row>>>,
): void => context.out.table(rows, gatewayTimes(columns(cells), 'UPDATED'), empty);

const add: CommandSpec = {
  summary: 'add numbers to the opt-out list',
  usage: `msgbridge optout add PHONE… [--callback NUMBER]

Registers each PHONE as refusing messages from the sender number --callback, or from every
sender when --callback is omitted or "*". The gateway refuses a pair registered twice.`,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'PHONE' },
  options: { callback: { type: 'string' } },
  run: async (context) => {
    const callback = context.string('callback') ?? '*';
    const entries = context.positionals.map((phone) => ({ phone, callback }));
    const client = await (await context.target()).gateway().optOut();
    await client.registerOptOut(entries);
    context.out.emit({ added: entries }, () =>
      context.out.line(
        `added ${entries.length} ${entries.length === 1 ? 'number' : 'numbers'} to the opt-out list (callback ${callback})`,
      ),
    );
    return 0;
  },
};

const list: CommandSpec = {
  summary: 'list the opt-out entries',
  usage: `msgbridge optout list [--phone PHONE] [--page N] [--size N] [--all] [--reveal]

Lists the opt-out entries, --size (default 100) to a page from page 1, optionally of one
--phone. Removed entries stay in the gateway's list (deleted = Y); they are shown only with
--all (--json always has every entry the gateway answered).
${REVEAL_NOTE}`,
  options: { ...valueOptions('phone', 'page', 'size'), ...flagOptions('all', 'reveal') },
  run: async (context) => {
    const phone = context.string('phone');
    const query = {
      ...(phone === undefined ? {} : { phone }),
      pageIdx: context.integer('page', 1, { min: 1 }),
      listCnt: context.integer('size', 100, { min: 1, max: 1000 }),
    };
    const client = await (await context.target()).gateway().optOut();
    const data = await client.listOptOut(query);
    const shown = context.flag('all')
      ? data.rejectList
      : data.rejectList.filter((entry) => entry.delYn !== 'Y');
    context.out.emit(data, () => {
      table(context, shown, '(no opt-out entries)', {
        PHONE: (entry) => show(context, entry.phone),
        CALLBACK: (entry) => show(context, entry.callback),
        DELETED: 'delYn',
        UPDATED: 'updDt',
      });
      if (data.totalCnt !== undefined && data.totalCnt !== null) {
        context.out.line(`page ${query.pageIdx}, ${data.totalCnt} entries in all`);
      }
    });
    return 0;
  },
};

const remove: CommandSpec = {
  summary: 'remove a number from the opt-out list',
  usage: `msgbridge optout remove PHONE [--callback NUMBER]

Removes the entry of PHONE for the sender number --callback; with "*" (the default) the entry
for every sender. Removing an entry twice succeeds.`,
  positionals: { min: 1, max: 1, name: 'PHONE' },
  options: { callback: { type: 'string' } },
  run: async (context) => {
    const [phone = ''] = context.positionals;
    const callback = context.string('callback') ?? '*';
    const client = await (await context.target()).gateway().optOut();
    await client.deleteOptOut({ phone, callback });
    context.out.emit({ removed: { phone, callback } }, () =>
      context.out.line(
        `removed ${show(context, phone)} (callback ${callback}) from the opt-out list`,
      ),
    );
    return 0;
  },
};

const period: CommandSpec = {
  summary: 'numbers blocked or unblocked on an 080 number within a period',
  usage: `msgbridge optout period --number 080NUMBER --from YYYYMMDDHHMMSS --to YYYYMMDDHHMMSS [--page N] [--size N] [--reveal]

Lists the numbers that were blocked (status inactive) or unblocked (active) through the 080
number within the period (KST), --size (default 100, max 300) to a page.
${REVEAL_NOTE}`,
  options: { ...valueOptions('number', 'from', 'to', 'page', 'size'), ...flagOptions('reveal') },
  run: async (context) => {
    const query = {
      '080ArsNumber': context.required('number'),
      fromTime: context.required('from'),
      toTime: context.required('to'),
      page: context.integer('page', 1, { min: 1 }),
      pageSize: context.integer('size', 100, { min: 1, max: 300 }),
    };
    const client = await (await context.target()).gateway().optOut();
    const answer = await client.listOptOutPeriod(query);
    const items = answer.data ?? [];
    context.out.emit({ items, meta: answer.meta ?? null }, () => {
      table(context, items, '(none in this period)', {
        NUMBER: (item) => show(context, item.blockNumber),
        CALLER: (item) => show(context, item.aniNumber),
        STATUS: 'status',
        UPDATED: 'updateTime',
      });
      const meta = answer.meta;
      if (meta?.totalItems !== undefined && meta.totalItems !== null) {
        context.out.line(
          `page ${query.page} of ${meta.totalPages ?? '?'}, ${meta.totalItems} in all`,
        );
      }
    });
    return 0;
  },
};

export const optoutCommands: GroupSpec = {
  summary: 'the opt-out (080) list: add, list, remove, period',
  description: `The gateway's opt-out list (spec 01 §4.15). ${REVEAL_NOTE}`,
  commands: { add, list, remove, period },
};
