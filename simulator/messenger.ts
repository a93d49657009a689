import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import type { SimContext } from './context.ts';
import { envelope, ok } from './context.ts';
import {
  checkTemplateCreate,
  IMAGE_PARTS,
  isPartsFailure,
  readTemplateParts,
  type StoredImage,
  storedImages,
  type TemplateCreateParts,
  type TemplateImagePart,
} from './messenger-images.ts';
import {
  ChannelCreateBody,
  ChannelIdBody,
  ChannelListBody,
  ChannelTokenBody,
  firstIssue,
  GroupMemberBody,
  MESSENGER_ROUTES,
  MESSENGER_STAT_PATHS,
  type MessengerRouteName,
  type MessengerStatName,
  StatsQuery,
  TEMPLATE_STATUSES,
  TemplateActionBody,
  TemplateCommentBody,
  type TemplateCreateFields,
  TemplateListBody,
  type TemplateStatus,
} from './messenger-requests.ts';
import {
  MESSENGER_CODES,
  SIM_CHANNEL_CATEGORIES,
  SIM_GROUPS,
  SIM_RELAYS,
  SIM_TEMPLATE_CATEGORIES,
  simulatedChannelToken,
} from './messenger-seeds.ts';
import { statRows } from './messenger-stats.ts';
import type { Router, SimHandler, SimRequest, SimResponse } from './router.ts';
import type * as z from './zod.ts';

// The seeds are part of what the messenger simulation offers: its tests import them from here.

/**
 * Messenger channels, channel groups, notification templates and statistics, spec 02. All on
 * the bearer token. Requests are checked by the simulator's own reading of the spec
 * (`messenger-requests.ts`, images in `messenger-images.ts`); choices where the spec is silent
 * are listed there and in `simulator/README.md`.
 *
 * Template create takes JSON, or `multipart/form-data` with the parts `reqBody`, `image` and
 * `itemHighlightImage`. The spec's list answer has no image field, so the list stays as the spec
 * shapes it; what was received (name, type, size, sha256, and a URL serving the stored bytes) is
 * at `GET /_sim/messenger/templates/{templateKey}`, the bytes at `…/images/{part}`. The review
 * (R → Q → A or S) has no trigger in the spec: `POST /_sim/messenger/templates/{templateKey}/status`
 * `{status}` moves a template to any state.
 *
 * Review request (§3, §4.3): from `T`; from `S` too when the simulator runs with
 * `internalApproval` (spec 02 §3 allows internal-approval customers to request again after a
 * rejection, §4.3 says `T` only). Delete: from `T` only.
 */
type ChannelStat = 'A' | 'B' | 'P' | 'D';

interface Channel {
  readonly msgrChId: string;
  readonly categoryCode: string;
  readonly createdAt: number;
  stat: ChannelStat;
}

interface Template {
  readonly templateKey: string;
  readonly templateCode: string;
  readonly senderType: 'S' | 'G';
  /** msgrChId (S) or msgrGrpId (G). */
  readonly owner: string;
  readonly body: TemplateCreateFields;
  readonly images: Readonly<Partial<Record<TemplateImagePart, StoredImage>>>;
  status: TemplateStatus;
  updatedAt: number;
  readonly comments: string[];
}

/** Period-list status of a channel detail status. */
const LIST_STAT: Record<ChannelStat, string> = { A: 'A', B: 'B', P: 'C', D: 'D' };
const CHANNEL_STATS = new Set<string>(['A', 'B', 'P', 'D']);
const isTemplateStatus = (value: string): value is TemplateStatus =>
  (TEMPLATE_STATUSES as readonly string[]).includes(value);
const DEFAULT_PAGE_SIZE = 100;

const dateTime = (instant: number): string => formatKst(instant, 'YYYY-MM-DD HH:mm:ss');

export const createMessenger = (ctx: SimContext) => {
  const channels = new Map<string, Channel>();
  /** chGrpKey → msgrChId → time added. */
  const memberships = new Map<string, Map<string, number>>(
    SIM_GROUPS.map((group) => [group.chGrpKey, new Map()]),
  );
  const groupCreatedAt = ctx.clock.now();
  /** `${msgrChId}|${phoneNumber}|${relay}` of every token sent. */
  const issuedTokens = new Set<string>();
  const templates = new Map<string, Template>();
  let nextTemplateKey = 1;

  const fail = (code: string, message: string, status = 400): SimResponse =>
    envelope(code, message, undefined, status);

  const invalid = (error: z.core.$ZodError): SimResponse =>
    fail(MESSENGER_CODES.invalidField, firstIssue(error));

  /** Bearer check, then the JSON body parsed with `schema`; `{response}` when either fails. */
  const body = <S extends z.ZodMiniType>(
    request: SimRequest,
    schema: S,
  ): { data: z.output<S> } | { response: SimResponse } => {
    const denied = ctx.requireBearer(request);
    if (denied) return { response: denied };
    const parsed = schema.safeParse(request.json() ?? {});
    return parsed.success ? { data: parsed.data } : { response: invalid(parsed.error) };
  };

  /** The body of a group membership change (§4.2) and the members of the group it names. */
  const membershipChange = (
    request: SimRequest,
  ):
    | { chGrpKey: string; msgrChId: string; members: Map<string, number> }
    | { response: SimResponse } => {
    const parsed = body(request, GroupMemberBody);
    if ('response' in parsed) return parsed;
    const { chGrpKey, msgrChId } = parsed.data;
    const members = memberships.get(chGrpKey);
    if (!members) return { response: fail(MESSENGER_CODES.unknownGroup, `no group ${chGrpKey}`) };
    return { chGrpKey, msgrChId, members };
  };

  const liveChannel = (msgrChId: string): Channel | undefined => {
    const channel = channels.get(msgrChId);
    return channel && channel.stat !== 'D' ? channel : undefined;
  };

  const unknownChannel = (msgrChId: string) =>
    fail(MESSENGER_CODES.unknownChannel, `no channel ${msgrChId}`);

  const templateId = (senderType: string, owner: string, templateCode: string) =>
    `${senderType}|${owner}|${templateCode}`;

  /** The template owner's id, or a failure when the channel or group does not exist. */
  const ownerOf = (value: {
    msgrChId?: string | undefined;
    msgrGrpId?: string | undefined;
    type: 'S' | 'G';
  }): { owner: string } | { response: SimResponse } => {
    if (value.type === 'S') {
      const id = value.msgrChId ?? '';
      return liveChannel(id) ? { owner: id } : { response: unknownChannel(id) };
    }
    const id = value.msgrGrpId ?? '';
    return memberships.has(id)
      ? { owner: id }
      : { response: fail(MESSENGER_CODES.unknownGroup, `no group ${id}`) };
  };

  // ---- categories and groups ----

  const handlers: Record<MessengerRouteName, SimHandler> = {
    templateCategories: (request) => ctx.requireBearer(request) ?? ok(SIM_TEMPLATE_CATEGORIES),

    channelCategories: (request) => ctx.requireBearer(request) ?? ok(SIM_CHANNEL_CATEGORIES),

    groupsOfChannel: (request) => {
      const parsed = body(request, ChannelIdBody);
      if ('response' in parsed) return parsed.response;
      const { msgrChId } = parsed.data;
      if (!liveChannel(msgrChId)) return unknownChannel(msgrChId);
      return ok(
        SIM_GROUPS.flatMap((group) => {
          const added = memberships.get(group.chGrpKey)?.get(msgrChId);
          return added === undefined
            ? []
            : [{ chGrpKey: group.chGrpKey, chGrpName: group.chGrpName, regDt: dateTime(added) }];
        }),
      );
    },

    addToGroup: (request) => {
      const change = membershipChange(request);
      if ('response' in change) return change.response;
      const { chGrpKey, msgrChId, members } = change;
      if (!liveChannel(msgrChId)) return unknownChannel(msgrChId);
      if (members.has(msgrChId)) {
        return fail(MESSENGER_CODES.alreadyInGroup, `${msgrChId} is already in group ${chGrpKey}`);
      }
      members.set(msgrChId, ctx.clock.now());
      return ok({ chGrpKey, msgrChId });
    },

    groupMembers: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const chGrpKey = request.params.groupKey ?? '';
      const members = memberships.get(chGrpKey);
      if (!members) return fail(MESSENGER_CODES.unknownGroup, `no group ${chGrpKey}`);
      return ok(
        [...members].map(([msgrChId, added]) => ({ chGrpKey, msgrChId, regDt: dateTime(added) })),
      );
    },

    allGroups: (request) =>
      ctx.requireBearer(request) ??
      ok(
        SIM_GROUPS.map((group) => ({
          ...group,
          regDt: dateTime(groupCreatedAt),
          updDt: null,
        })),
      ),

    removeFromGroup: (request) => {
      const change = membershipChange(request);
      if ('response' in change) return change.response;
      const { chGrpKey, msgrChId, members } = change;
      if (!members.delete(msgrChId)) {
        return fail(MESSENGER_CODES.notInGroup, `${msgrChId} is not in group ${chGrpKey}`);
      }
      return ok({ chGrpKey, msgrChId });
    },

    // ---- channels ----

    listChannels: (request) => {
      const parsed = body(request, ChannelListBody);
      if ('response' in parsed) return parsed.response;
      const { standardDateTime, page = 1, pageSize = DEFAULT_PAGE_SIZE } = parsed.data;
      const from = Date.parse(parseGatewayDateTime(standardDateTime) ?? '');
      const selected = [...channels.values()]
        .filter((channel) => channel.createdAt >= from)
        .sort((a, b) => a.createdAt - b.createdAt);
      return ok(
        selected.slice((page - 1) * pageSize, page * pageSize).map((channel) => ({
          msgrChId: channel.msgrChId,
          msgrChStat: LIST_STAT[channel.stat],
          createDate: dateTime(channel.createdAt),
          categoryCode: channel.categoryCode,
        })),
      );
    },

    channelToken: (request) => {
      const parsed = body(request, ChannelTokenBody);
      if ('response' in parsed) return parsed.response;
      const { phoneNumber, msgrChId, relay } = parsed.data;
      if (!(SIM_RELAYS as readonly string[]).includes(relay)) {
        return fail(MESSENGER_CODES.unknownRelay, `unknown relay ${relay}`);
      }
      issuedTokens.add(`${msgrChId}|${phoneNumber}|${relay}`);
      ctx.log(
        `messenger: token for ${msgrChId} sent to ${phoneNumber} via ${relay}: ${simulatedChannelToken(msgrChId, phoneNumber, relay)}`,
      );
      return ok({ phoneNumber, yellowId: msgrChId, msgrChId, relay });
    },

    createChannel: (request) => {
      const parsed = body(request, ChannelCreateBody);
      if ('response' in parsed) return parsed.response;
      const { tokens, categoryCode, msgrChId } = parsed.data;
      if (!SIM_CHANNEL_CATEGORIES.some((category) => category.code === categoryCode)) {
        return fail(MESSENGER_CODES.unknownCategory, `unknown channel category ${categoryCode}`);
      }
      if (channels.has(msgrChId)) {
        return fail(MESSENGER_CODES.channelExists, `channel ${msgrChId} is already registered`);
      }
      const bad = tokens.find(
        (entry) =>
          !issuedTokens.has(`${msgrChId}|${entry.phoneNumber}|${entry.rid}`) ||
          entry.token !== simulatedChannelToken(msgrChId, entry.phoneNumber, entry.rid),
      );
      if (bad) {
        return fail(
          MESSENGER_CODES.badChannelToken,
          `token for ${bad.phoneNumber} via ${bad.rid} was not issued or does not match`,
        );
      }
      channels.set(msgrChId, { msgrChId, categoryCode, createdAt: ctx.clock.now(), stat: 'A' });
      return ok();
    },

    restoreChannel: (request) => changeStat(request, 'D', 'restore'),

    recoverChannel: (request) => changeStat(request, 'P', 'recover'),

    relayInfo: (request) => ctx.requireBearer(request) ?? ok({ relay: SIM_RELAYS }),

    getChannel: (request) => {
      const parsed = body(request, ChannelIdBody);
      if ('response' in parsed) return parsed.response;
      const channel = channels.get(parsed.data.msgrChId);
      if (!channel) return unknownChannel(parsed.data.msgrChId);
      return ok({
        msgrChId: channel.msgrChId,
        stat: channel.stat,
        createDate: dateTime(channel.createdAt),
        categoryCode: channel.categoryCode,
      });
    },

    // ---- templates ----

    createTemplate: async (request) => {
      const parsed = await templateCreateParts(request);
      if ('response' in parsed) return parsed.response;
      const value = parsed.data.reqBody;
      const owner = ownerOf({ ...value, type: value.senderType });
      if ('response' in owner) return owner.response;
      if (!SIM_TEMPLATE_CATEGORIES.some((category) => category.code === value.categoryCode)) {
        return fail(
          MESSENGER_CODES.unknownCategory,
          `unknown template category ${value.categoryCode}`,
        );
      }
      const templateKey = `TK${String(nextTemplateKey++).padStart(6, '0')}`;
      const templateCode = value.templateCode ?? templateKey;
      const id = templateId(value.senderType, owner.owner, templateCode);
      if (templates.has(id)) {
        return fail(MESSENGER_CODES.templateCodeTaken, `template ${templateCode} already exists`);
      }
      templates.set(id, {
        templateKey,
        templateCode,
        senderType: value.senderType,
        owner: owner.owner,
        body: value,
        images: storedImages(parsed.data),
        status: 'T',
        updatedAt: ctx.clock.now(),
        comments: [],
      });
      return ok({
        templateKey,
        templateCode,
        templateName: value.templateName,
        msgrChId: value.msgrChId ?? null,
        templateInfo: {
          senderKey: owner.owner,
          senderType: value.senderType,
          templateCode,
          msgrTemplateCode: templateKey,
          templateName: value.templateName,
          templateContent: value.templateContent,
          categoryCode: value.categoryCode,
          templateMessageType: value.templateMessageType,
          templateEmphasizeType: value.templateEmphasizeType,
          templateTitle: value.templateTitle ?? null,
          templateSubtitle: value.templateSubtitle ?? null,
        },
      });
    },

    requestTemplate: (request) => templateAction(request, 'request'),

    deleteTemplate: (request) => templateAction(request, 'delete'),

    commentTemplate: (request) => {
      const parsed = body(request, TemplateCommentBody);
      if ('response' in parsed) return parsed.response;
      const found = findTemplate({ ...parsed.data, type: parsed.data.senderType });
      if ('response' in found) return found.response;
      found.template.comments.push(parsed.data.comment);
      found.template.updatedAt = ctx.clock.now();
      return ok();
    },

    listTemplates: (request) => {
      const parsed = body(request, TemplateListBody);
      if ('response' in parsed) return parsed.response;
      const value = parsed.data;
      const owner = ownerOf({ ...value, type: value.senderType });
      if ('response' in owner) return owner.response;
      const since =
        value.updateDt === undefined
          ? Number.NEGATIVE_INFINITY
          : Date.parse(parseGatewayDateTime(value.updateDt) ?? '');
      return ok(
        [...templates.values()]
          .filter(
            (t) =>
              t.senderType === value.senderType && t.owner === owner.owner && t.updatedAt >= since,
          )
          .map((t) => ({
            msgrChId: t.senderType === 'S' ? t.owner : null,
            templateName: t.body.templateName,
            templateKey: t.templateKey,
            templateCode: t.templateCode,
            templateStatusCode: t.status,
          })),
      );
    },
  };

  /** The create's parts: a JSON body is `reqBody` alone; a multipart body adds the images. */
  const templateCreateParts = async (
    request: SimRequest,
  ): Promise<{ data: TemplateCreateParts } | { response: SimResponse }> => {
    const denied = ctx.requireBearer(request);
    if (denied) return { response: denied };
    const contentType = request.headers['content-type'] ?? '';
    const raw = /^multipart\/form-data\b/i.test(contentType)
      ? await readTemplateParts(request)
      : { reqBody: request.json() ?? {} };
    const checked = isPartsFailure(raw) ? raw : checkTemplateCreate(raw);
    return isPartsFailure(checked)
      ? { response: fail(checked.code, checked.message) }
      : { data: checked };
  };

  const templateByKey = (templateKey: string): Template | undefined =>
    [...templates.values()].find((t) => t.templateKey === templateKey);

  /** `GET /_sim/messenger/templates/{templateKey}`: the template as the simulator holds it. */
  const templateDetail: SimHandler = (request) => {
    const templateKey = request.params.templateKey ?? '';
    const template = templateByKey(templateKey);
    if (!template) return fail(MESSENGER_CODES.unknownTemplate, `no template ${templateKey}`);
    // The URL is built from the Host the caller used, so it works behind any address or port.
    const origin = request.headers.host === undefined ? '' : `http://${request.headers.host}`;
    return ok({
      templateKey: template.templateKey,
      templateCode: template.templateCode,
      senderType: template.senderType,
      owner: template.owner,
      templateStatusCode: template.status,
      comments: template.comments,
      reqBody: template.body,
      images: Object.fromEntries(
        Object.entries(template.images).map(([part, { data: _bytes, ...image }]) => [
          part,
          {
            ...image,
            url: `${origin}/_sim/messenger/templates/${encodeURIComponent(templateKey)}/images/${part}`,
          },
        ]),
      ),
    });
  };

  /** `GET /_sim/messenger/templates/{templateKey}/images/{part}`: the stored bytes. */
  const templateImage: SimHandler = (request) => {
    const templateKey = request.params.templateKey ?? '';
    const part = request.params.part as TemplateImagePart;
    const image = IMAGE_PARTS.includes(part) ? templateByKey(templateKey)?.images[part] : undefined;
    if (!image)
      return fail(MESSENGER_CODES.unknownTemplate, `no ${part} for template ${templateKey}`, 404);
    return {
      status: 200,
      body: image.data,
      headers: { 'content-type': image.contentType, 'content-length': String(image.size) },
    };
  };

  const changeStat = (request: SimRequest, from: ChannelStat, operation: string): SimResponse => {
    const parsed = body(request, ChannelIdBody);
    if ('response' in parsed) return parsed.response;
    const channel = channels.get(parsed.data.msgrChId);
    if (!channel) return unknownChannel(parsed.data.msgrChId);
    if (channel.stat !== from) {
      return fail(
        MESSENGER_CODES.channelStateConflict,
        `cannot ${operation} channel ${channel.msgrChId}: its status is ${channel.stat}, ${operation} needs ${from}`,
      );
    }
    channel.stat = 'A';
    return ok();
  };

  const findTemplate = (value: {
    msgrChId?: string | undefined;
    msgrGrpId?: string | undefined;
    templateCode: string;
    type: 'S' | 'G';
  }): { id: string; template: Template } | { response: SimResponse } => {
    const owner = ownerOf(value);
    if ('response' in owner) return owner;
    const id = templateId(value.type, owner.owner, value.templateCode);
    const template = templates.get(id);
    return template
      ? { id, template }
      : { response: fail(MESSENGER_CODES.unknownTemplate, `no template ${value.templateCode}`) };
  };

  /**
   * The states an operation may start from. Spec 02 §3 lets internal-approval customers request
   * review again after a rejection (`S`), which §4.3 does not mention; the simulator follows §3
   * only when told the key is such a customer's (`internalApproval`), and answers the same
   * refusal as for any other state otherwise.
   */
  const allowedFrom = (operation: 'request' | 'delete'): readonly TemplateStatus[] =>
    operation === 'request' && ctx.options.internalApproval ? ['T', 'S'] : ['T'];

  const templateAction = (request: SimRequest, operation: 'request' | 'delete'): SimResponse => {
    const parsed = body(request, TemplateActionBody);
    if ('response' in parsed) return parsed.response;
    const found = findTemplate({ ...parsed.data, type: parsed.data.senderKeyType });
    if ('response' in found) return found.response;
    const { id, template } = found;
    if (!allowedFrom(operation).includes(template.status)) {
      return fail(
        MESSENGER_CODES.templateNotInT,
        `cannot ${operation} template ${template.templateCode}: its status is ${template.status}`,
      );
    }
    if (operation === 'delete') {
      templates.delete(id);
    } else {
      template.status = 'R';
      template.updatedAt = ctx.clock.now();
      if (parsed.data.comment !== undefined) template.comments.push(parsed.data.comment);
    }
    return ok();
  };

  // ---- statistics ----

  const stats =
    (name: MessengerStatName): SimHandler =>
    (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const parsed = StatsQuery.safeParse({
        msgrChId: request.query.get('msgrChId') ?? undefined,
        date: request.query.get('date') ?? undefined,
        elapsedDay: request.query.get('elapsedDay') ?? undefined,
      });
      if (!parsed.success) return invalid(parsed.error);
      const { msgrChId } = parsed.data;
      if (!channels.has(msgrChId)) return unknownChannel(msgrChId);
      const templateCodes = [...templates.values()]
        .filter((t) => t.senderType === 'S' && t.owner === msgrChId)
        .map((t) => t.templateCode);
      return ok(statRows(name, parsed.data, templateCodes));
    };

  /** `POST /_sim/messenger/channels/{msgrChId}/stat` `{stat}`: makes a channel dormant, deleted… */
  const setChannelStat: SimHandler = (request) => {
    const channel = channels.get(request.params.msgrChId ?? '');
    if (!channel) return unknownChannel(request.params.msgrChId ?? '');
    const value = request.json();
    const stat =
      value !== null && typeof value === 'object' && 'stat' in value ? String(value.stat) : '';
    if (!CHANNEL_STATS.has(stat)) {
      return fail(MESSENGER_CODES.invalidField, 'stat: expected one of A, B, P, D');
    }
    channel.stat = stat as ChannelStat;
    return ok({ msgrChId: channel.msgrChId, stat: channel.stat });
  };

  /**
   * `POST /_sim/messenger/templates/{templateKey}/status` `{status}`: the platform's review,
   * which the spec gives no trigger for (R → Q → A or S), done by hand. Any of the five states is
   * taken, so a test can put a template where it needs it.
   */
  const setTemplateStatus: SimHandler = (request) => {
    const templateKey = request.params.templateKey ?? '';
    const template = templateByKey(templateKey);
    if (!template) return fail(MESSENGER_CODES.unknownTemplate, `no template ${templateKey}`);
    const value = request.json();
    const status =
      value !== null && typeof value === 'object' && 'status' in value ? String(value.status) : '';
    if (!isTemplateStatus(status)) {
      return fail(
        MESSENGER_CODES.invalidField,
        `status: expected one of ${TEMPLATE_STATUSES.join(', ')}`,
      );
    }
    template.status = status;
    template.updatedAt = ctx.clock.now();
    return ok({ templateKey, templateCode: template.templateCode, templateStatusCode: status });
  };

  return {
    register(router: Router): void {
      router.addAll(MESSENGER_ROUTES, handlers);
      for (const name of Object.keys(MESSENGER_STAT_PATHS) as MessengerStatName[]) {
        router.add('GET', MESSENGER_STAT_PATHS[name], stats(name));
      }
      router.add('POST', '/_sim/messenger/channels/:msgrChId/stat', setChannelStat);
      router.add('GET', '/_sim/messenger/templates/:templateKey', templateDetail);
      router.add('POST', '/_sim/messenger/templates/:templateKey/status', setTemplateStatus);
      router.add('GET', '/_sim/messenger/templates/:templateKey/images/:part', templateImage);
    },
  };
};
