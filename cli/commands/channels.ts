import { maskPhone } from '../../functions/commons/helpers/mask.ts';
import type { ChannelListItem } from '../../gateway/schemas/index.ts';
import { UsageError } from '../errors.ts';
import type { CommandContext, CommandSpec, GroupSpec } from '../framework.ts';
import { compactDateOption, flagOptions, valueOptions } from '../framework.ts';
import { columns, described, gatewayTimes } from '../output.ts';

/*
 * `msgbridge channels …`: messenger channels and channel groups (spec 02 §4.1, §4.2), one command
 * per method of the management client, on the shared bearer token.
 */

const management = async (context: CommandContext) => (await context.target()).gateway().management;

/** The status letters of spec 02 §2 and their meaning, for human output. */
const LIST_STATUS = { A: 'active', C: 'inactive', B: 'blocked', E: 'being deleted', D: 'deleted' };
const DETAIL_STATUS = { A: 'normal', B: 'blocked', P: 'dormant', D: 'deleted' };
const GROUP_STATUS = { R: 'requested', A: 'approved', C: 'rejected' };

/** What `list` and `get` show of a channel; the two answers spell its status differently. */
const channelColumns = <
  Row extends { msgrChId?: unknown; createDate?: unknown; categoryCode?: unknown },
>(
  status: (row: Row) => string,
) =>
  gatewayTimes(
    columns<Row>({
      CHANNEL: 'msgrChId',
      STATUS: status,
      CREATED: 'createDate',
      CATEGORY: 'categoryCode',
    }),
    'CREATED',
  );

const categories: CommandSpec = {
  summary: 'channel categories (the 11-character codes create takes)',
  usage: `msgbridge channels categories

Lists the channel categories; \`channels create --category CODE\` takes one of the codes.`,
  run: async (context) => {
    const rows = await (await management(context)).listChannelCategories();
    context.out.rows(rows, columns({ CODE: 'code', NAME: 'name' }));
    return 0;
  },
};

const relays: CommandSpec = {
  summary: 'relay ids usable for the channel token',
  usage: `msgbridge channels relays

Lists the relay ids that \`channels token --relay\` and \`channels create --token\` accept.`,
  run: async (context) => {
    const data = await (await management(context)).relayInfo();
    context.out.emit(data, () =>
      context.out.table(data.relay, [{ header: 'RELAY', value: (relay) => relay }]),
    );
    return 0;
  },
};

const list: CommandSpec = {
  summary: 'channels created since a date',
  usage: `msgbridge channels list [--since DATE] [--page N] [--page-size N]

Lists the channels created from DATE on (KST; YYYY-MM-DD or "YYYY-MM-DD HH:mm:ss"). Without
--since every channel since 2000-01-01 is listed. --page starts at 1.`,
  options: valueOptions('since', 'page', 'page-size'),
  run: async (context) => {
    const since = context.string('since');
    const request = {
      standardDateTime:
        since === undefined ? '20000101000000' : compactDateOption('since', since, 14),
      ...(context.string('page') === undefined
        ? {}
        : { page: context.integer('page', 1, { min: 1 }) }),
      ...(context.string('page-size') === undefined
        ? {}
        : { pageSize: context.integer('page-size', 100, { min: 1 }) }),
    };
    const rows = await (await management(context)).listChannels(request);
    const status = (row: ChannelListItem) => described(LIST_STATUS, row.msgrChStat);
    context.out.rows(rows, channelColumns(status), '(no channels)');
    return 0;
  },
};

const get: CommandSpec = {
  summary: 'one channel: status, creation date, category',
  usage: `msgbridge channels get CHANNEL_ID

Shows the channel's status (A normal, B blocked, P dormant, D deleted), creation date and category.`,
  positionals: { min: 1, max: 1, name: 'CHANNEL_ID' },
  run: async (context) => {
    const [msgrChId = ''] = context.positionals;
    const channel = await (await management(context)).getChannel(msgrChId);
    const status = described(DETAIL_STATUS, channel.stat);
    context.out.emit(channel, () =>
      context.out.table(
        [channel],
        channelColumns(() => status),
      ),
    );
    return 0;
  },
};

const token: CommandSpec = {
  summary: "send the relay authentication code to the channel administrator's phone",
  usage: `msgbridge channels token CHANNEL_ID --phone NUMBER --relay RELAY [--reveal]

First step of registering a channel: the gateway sends an authentication code to the channel
administrator's phone (NUMBER, up to 11 digits) through RELAY (see \`channels relays\`). Then
run \`channels create\` with that code. The number is masked in the output unless --reveal.`,
  positionals: { min: 1, max: 1, name: 'CHANNEL_ID' },
  options: { ...valueOptions('phone', 'relay'), ...flagOptions('reveal') },
  run: async (context) => {
    const [msgrChId = ''] = context.positionals;
    const request = {
      msgrChId,
      phoneNumber: context.required('phone'),
      relay: context.required('relay'),
    };
    const sent = await (await management(context)).requestChannelToken(request);
    const phone = context.flag('reveal') ? request.phoneNumber : maskPhone(request.phoneNumber);
    context.out.emit(sent, () =>
      context.out.line(
        `sent the authentication code for ${msgrChId} to ${phone} via ${request.relay}; next: msgbridge channels create ${msgrChId} --category CODE --token ${request.relay}:PHONE:CODE`,
      ),
    );
    return 0;
  },
};

/** `RELAY:PHONE:CODE` of `--token`, as one entry of the create request's `tokens`. */
const parseToken = (value: string) => {
  const match = /^([^:]+):(\d+):(\d+)$/.exec(value);
  if (!match)
    throw new UsageError(
      `--token must be RELAY:PHONE:CODE (e.g. r01:01012345678:123456), got "${value}"`,
    );
  const [, rid = '', phoneNumber = '', code = ''] = match;
  return { rid, phoneNumber, token: Number(code) };
};

const create: CommandSpec = {
  summary: 'register a channel with the authentication codes',
  usage: `msgbridge channels create CHANNEL_ID --category CODE --token RELAY:PHONE:CODE… [--memo TEXT]

Registers the channel (created beforehand in the platform's business center) with the code each
administrator received after \`channels token\`: one --token per relay authentication, e.g.
--token r01:01012345678:123456. CODE of --category is from \`channels categories\`.`,
  positionals: { min: 1, max: 1, name: 'CHANNEL_ID' },
  options: { ...valueOptions('category', 'memo'), token: { type: 'string', multiple: true } },
  run: async (context) => {
    const [msgrChId = ''] = context.positionals;
    const given = context.values.token;
    const tokens = (Array.isArray(given) ? given : []).map((value) => parseToken(String(value)));
    if (tokens.length === 0) throw new UsageError('--token is required (RELAY:PHONE:CODE)');
    const memo = context.string('memo');
    const request = {
      msgrChId,
      categoryCode: context.required('category'),
      tokens,
      ...(memo === undefined ? {} : { memo }),
    };
    await (await management(context)).createChannel(request);
    context.out.emit({ msgrChId, created: true }, () =>
      context.out.line(`registered channel ${msgrChId}`),
    );
    return 0;
  },
};

/** `restore` and `recover`: one channel id, no answer beyond success. */
const channelAction = (
  action: 'restore' | 'recover',
  summary: string,
  description: string,
): CommandSpec => ({
  summary,
  usage: `msgbridge channels ${action} CHANNEL_ID\n\n${description}`,
  positionals: { min: 1, max: 1, name: 'CHANNEL_ID' },
  run: async (context) => {
    const [msgrChId = ''] = context.positionals;
    const client = await management(context);
    if (action === 'restore') await client.restoreChannel(msgrChId);
    else await client.recoverChannel(msgrChId);
    const done = action === 'restore' ? 'restored' : 'recovered';
    context.out.emit({ msgrChId, [done]: true }, () =>
      context.out.line(`${done} channel ${msgrChId}`),
    );
    return 0;
  },
});

const groups: CommandSpec = {
  summary: 'channel groups: all of them, or those containing a channel',
  usage: `msgbridge channels groups [--channel CHANNEL_ID]

Lists every channel group with its status (R requested, A approved, C rejected), or with
--channel only the groups that contain that channel.`,
  options: { channel: { type: 'string' } },
  run: async (context) => {
    const client = await management(context);
    const channel = context.string('channel');
    if (channel !== undefined) {
      const rows = await client.listGroupsOfChannel(channel);
      context.out.rows(
        rows,
        gatewayTimes(columns({ GROUP: 'chGrpKey', NAME: 'chGrpName', SINCE: 'regDt' }), 'SINCE'),
        `(${channel} is in no group)`,
      );
      return 0;
    }
    const rows = await client.listGroups();
    context.out.rows(
      rows,
      gatewayTimes(
        columns({
          GROUP: 'chGrpKey',
          NAME: 'chGrpName',
          STATUS: (row) => described(GROUP_STATUS, row.chGrpStatCd),
          CREATED: 'regDt',
          UPDATED: 'updDt',
        }),
        'CREATED',
        'UPDATED',
      ),
      '(no groups)',
    );
    return 0;
  },
};

const members: CommandSpec = {
  summary: 'the channels of a group',
  usage: `msgbridge channels members GROUP_KEY

Lists the channels of the group GROUP_KEY (see \`channels groups\`).`,
  positionals: { min: 1, max: 1, name: 'GROUP_KEY' },
  run: async (context) => {
    const [groupKey = ''] = context.positionals;
    const rows = await (await management(context)).listGroupMembers(groupKey);
    context.out.rows(
      rows,
      gatewayTimes(columns({ CHANNEL: 'msgrChId', GROUP: 'chGrpKey', SINCE: 'regDt' }), 'SINCE'),
      '(no channels in this group)',
    );
    return 0;
  },
};

const membership = (action: 'add' | 'remove'): CommandSpec => ({
  summary: action === 'add' ? 'add a channel to a group' : 'take a channel out of a group',
  usage:
    action === 'add'
      ? `msgbridge channels group-add GROUP_KEY CHANNEL_ID

Adds the channel to the group; a channel already in the group is refused by the gateway.`
      : `msgbridge channels group-remove GROUP_KEY CHANNEL_ID

Takes the channel out of the group; the channel itself stays registered.`,
  positionals: {
    min: 2,
    max: 2,
    name: 'argument',
    missing: 'needs GROUP_KEY and CHANNEL_ID',
  },
  run: async (context) => {
    const [chGrpKey = '', msgrChId = ''] = context.positionals;
    const client = await management(context);
    const request = { chGrpKey, msgrChId };
    const data =
      action === 'add'
        ? await client.addChannelToGroup(request)
        : await client.removeChannelFromGroup(request);
    context.out.emit(data, () =>
      context.out.line(
        action === 'add'
          ? `added ${msgrChId} to group ${chGrpKey}`
          : `removed ${msgrChId} from group ${chGrpKey}`,
      ),
    );
    return 0;
  },
});

export const channelsCommands: GroupSpec = {
  summary: 'messenger channels and channel groups (spec 02)',
  description: `Messenger channels and channel groups (spec 02 §4.1, §4.2). To register a channel:
\`channels token\` sends a code to the administrator, \`channels create\` registers with it.`,
  commands: {
    list,
    get,
    categories,
    relays,
    token,
    create,
    restore: channelAction(
      'restore',
      'restore a deleted channel id',
      'Restores the deleted channel id CHANNEL_ID.',
    ),
    recover: channelAction(
      'recover',
      'activate a dormant channel',
      'Activates the dormant channel CHANNEL_ID.',
    ),
    groups,
    members,
    'group-add': membership('add'),
    'group-remove': membership('remove'),
  },
};
