import { createHash } from 'node:crypto';
import busboy from 'busboy';
import type { z } from 'zod';
import {
  ChannelCreateRequestSchema,
  ChannelGroupMemberRequestSchema,
  ChannelIdRequestSchema,
  ChannelListRequestSchema,
  ChannelTokenRequestSchema,
  MESSENGER_MANAGEMENT_PATHS,
  MESSENGER_STATS,
  type MessengerManagementPathName,
  type MessengerStatsName,
  MessengerStatsQuerySchema,
  TemplateActionRequestSchema,
  TemplateCommentRequestSchema,
  type TemplateCreateMultipartRequest,
  TemplateCreateMultipartRequestSchema,
  TemplateCreateRequestSchema,
  TemplateListRequestSchema,
  type TemplateStatusCode,
} from '../functions/commons/gateway/schemas/messenger-management.ts';
import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import type { SimContext } from './context.ts';
import { envelope, ok } from './context.ts';
import { stableHash } from './reports.ts';
import type { Router, SimHandler, SimRequest, SimResponse } from './router.ts';

/**
 * Messenger channels, channel groups, notification templates and statistics, spec 02. All on
 * the bearer token. Choices (the spec leaves them open) are listed in `simulator/README.md`.
 *
 * Template create takes JSON, or `multipart/form-data` with the parts `reqBody` (JSON, as a text
 * field or a file part), `image` and `itemHighlightImage` (file parts), checked with the same
 * `TemplateCreateMultipartRequestSchema` as the client: JPEG/PNG, at most 500 KB, type matching
 * bytes and name, the shorter highlight limits with a thumbnail. Another part name, a repeated
 * part or an image sent as a text field is `21001`; an unreadable body or a `reqBody` that is not
 * JSON is `21000`. The spec's list answer has no image field, so the list stays as the spec
 * shapes it; what was received (name, type, size, sha256, and a URL serving the stored bytes) is
 * at `GET /_sim/messenger/templates/{templateKey}`, the bytes at `…/images/{part}`.
 */
export const MESSENGER_CODES = {
  invalidField: '21001',
  unknownChannel: '22601',
  unknownGroup: '22602',
  alreadyInGroup: '22603',
  notInGroup: '22604',
  badChannelToken: '22605',
  channelExists: '22606',
  unknownCategory: '22607',
  channelStateConflict: '22608',
  unknownRelay: '22609',
  unknownTemplate: '22701',
  templateNotInT: '22702',
  templateCodeTaken: '22703',
} as const;

export const SIM_RELAYS = ['r01', 'r02'] as const;

/** Seeded channel categories (11 characters). */
export const SIM_CHANNEL_CATEGORIES = [
  { code: '00100010001', name: 'Shopping/Online' },
  { code: '00200020001', name: 'Finance/Bank' },
] as const;

/** Seeded template categories (6 digits: group code + detail code). */
export const SIM_TEMPLATE_CATEGORIES = [
  {
    code: '001001',
    name: 'Sign-up',
    groupName: 'Membership',
    iclusion: 'welcome after sign-up',
    exclusion: 'advertising',
  },
  {
    code: '002001',
    name: 'Order confirmed',
    groupName: 'Orders',
    iclusion: 'order and payment notices',
    exclusion: 'discount offers',
  },
] as const;

/** Seeded groups: channel groups are created outside the API. */
export const SIM_GROUPS = [
  { chGrpKey: 'G-sim-0001', chGrpName: 'Simulator group', chGrpStatCd: 'A' },
  { chGrpKey: 'G-sim-0002', chGrpName: 'Pending group', chGrpStatCd: 'R' },
] as const;

/**
 * The relay authentication code the simulator "delivers" to the administrator's device after
 * `channel/token`: a deterministic 6-digit number, so tests and local runs can compute it.
 */
export const simulatedChannelToken = (msgrChId: string, phoneNumber: string, rid: string): number =>
  100_000 + (stableHash(`${msgrChId}|${phoneNumber}|${rid}`) % 900_000);

type ChannelStat = 'A' | 'B' | 'P' | 'D';

interface Channel {
  readonly msgrChId: string;
  readonly categoryCode: string;
  readonly createdAt: number;
  stat: ChannelStat;
}

type TemplateImagePart = 'image' | 'itemHighlightImage';
const IMAGE_PARTS: readonly TemplateImagePart[] = ['image', 'itemHighlightImage'];

/** An image part as received with a template create. */
interface StoredImage {
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
  /** Hex SHA-256 of the bytes, so a test can tell the whole file arrived. */
  readonly sha256: string;
  readonly data: Buffer;
}

interface Template {
  readonly templateKey: string;
  readonly templateCode: string;
  readonly senderType: 'S' | 'G';
  /** msgrChId (S) or msgrGrpId (G). */
  readonly owner: string;
  readonly body: z.output<typeof TemplateCreateRequestSchema>;
  readonly images: Readonly<Partial<Record<TemplateImagePart, StoredImage>>>;
  status: TemplateStatusCode;
  updatedAt: number;
  readonly comments: string[];
}

/** Period-list status of a channel detail status. */
const LIST_STAT: Record<ChannelStat, string> = { A: 'A', B: 'B', P: 'C', D: 'D' };
const CHANNEL_STATS = new Set<string>(['A', 'B', 'P', 'D']);
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

  const invalid = (error: z.ZodError): SimResponse => {
    const [issue] = error.issues;
    const path = issue?.path.join('.') || '(body)';
    return fail(MESSENGER_CODES.invalidField, `${path}: ${issue?.message ?? 'invalid'}`);
  };

  /** Bearer check, then the JSON body parsed with `schema`; `{response}` when either fails. */
  const body = <S extends z.ZodType>(
    request: SimRequest,
    schema: S,
  ): { data: z.output<S> } | { response: SimResponse } => {
    const denied = ctx.requireBearer(request);
    if (denied) return { response: denied };
    const parsed = schema.safeParse(request.json() ?? {});
    return parsed.success ? { data: parsed.data } : { response: invalid(parsed.error) };
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

  const handlers: Record<MessengerManagementPathName, SimHandler> = {
    templateCategories: (request) => ctx.requireBearer(request) ?? ok(SIM_TEMPLATE_CATEGORIES),

    channelCategories: (request) => ctx.requireBearer(request) ?? ok(SIM_CHANNEL_CATEGORIES),

    groupsOfChannel: (request) => {
      const parsed = body(request, ChannelIdRequestSchema);
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
      const parsed = body(request, ChannelGroupMemberRequestSchema);
      if ('response' in parsed) return parsed.response;
      const { chGrpKey, msgrChId } = parsed.data;
      const members = memberships.get(chGrpKey);
      if (!members) return fail(MESSENGER_CODES.unknownGroup, `no group ${chGrpKey}`);
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
      const parsed = body(request, ChannelGroupMemberRequestSchema);
      if ('response' in parsed) return parsed.response;
      const { chGrpKey, msgrChId } = parsed.data;
      const members = memberships.get(chGrpKey);
      if (!members) return fail(MESSENGER_CODES.unknownGroup, `no group ${chGrpKey}`);
      if (!members.delete(msgrChId)) {
        return fail(MESSENGER_CODES.notInGroup, `${msgrChId} is not in group ${chGrpKey}`);
      }
      return ok({ chGrpKey, msgrChId });
    },

    // ---- channels ----

    listChannels: (request) => {
      const parsed = body(request, ChannelListRequestSchema);
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
      const parsed = body(request, ChannelTokenRequestSchema);
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
      const parsed = body(request, ChannelCreateRequestSchema);
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
      const parsed = body(request, ChannelIdRequestSchema);
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
      const parsed = body(request, TemplateCommentRequestSchema);
      if ('response' in parsed) return parsed.response;
      const found = findTemplate({ ...parsed.data, type: parsed.data.senderType });
      if ('response' in found) return found.response;
      found.template.comments.push(parsed.data.comment);
      found.template.updatedAt = ctx.clock.now();
      return ok();
    },

    listTemplates: (request) => {
      const parsed = body(request, TemplateListRequestSchema);
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
  ): Promise<{ data: TemplateCreateMultipartRequest } | { response: SimResponse }> => {
    const denied = ctx.requireBearer(request);
    if (denied) return { response: denied };
    const contentType = request.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\b/i.test(contentType)) {
      const parsed = TemplateCreateRequestSchema.safeParse(request.json() ?? {});
      return parsed.success
        ? { data: { reqBody: parsed.data } }
        : { response: invalid(parsed.error) };
    }
    const parts = await readTemplateParts(request);
    if ('code' in parts) return { response: fail(parts.code, parts.message) };
    const parsed = TemplateCreateMultipartRequestSchema.safeParse(parts);
    return parsed.success ? { data: parsed.data } : { response: invalid(parsed.error) };
  };

  const storedImages = (parts: TemplateCreateMultipartRequest): Template['images'] =>
    Object.fromEntries(
      IMAGE_PARTS.flatMap((part) => {
        const image = parts[part];
        if (image === undefined) return [];
        const data = Buffer.from(image.data);
        const stored: StoredImage = {
          fileName: image.fileName,
          contentType: image.contentType,
          size: data.byteLength,
          sha256: createHash('sha256').update(data).digest('hex'),
          data,
        };
        return [[part, stored]];
      }),
    );

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
    const parsed = body(request, ChannelIdRequestSchema);
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

  const templateAction = (request: SimRequest, operation: 'request' | 'delete'): SimResponse => {
    const parsed = body(request, TemplateActionRequestSchema);
    if ('response' in parsed) return parsed.response;
    const found = findTemplate({ ...parsed.data, type: parsed.data.senderKeyType });
    if ('response' in found) return found.response;
    const { id, template } = found;
    if (template.status !== 'T') {
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
    (name: MessengerStatsName): SimHandler =>
    (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const parsed = MessengerStatsQuerySchema.safeParse({
        msgrChId: request.query.get('msgrChId') ?? undefined,
        date: request.query.get('date') ?? undefined,
        elapsedDay: request.query.get('elapsedDay') ?? undefined,
      });
      if (!parsed.success) return invalid(parsed.error);
      const { msgrChId, date, elapsedDay } = parsed.data;
      if (!channels.has(msgrChId)) return unknownChannel(msgrChId);
      const n = (label: string) =>
        stableHash(`${name}|${msgrChId}|${date}|${elapsedDay}|${label}`) % 50;
      const base = { date, msgrChId };
      const brand = {
        ...base,
        messageSpec: 'BASIC',
        chatBubbleType: 'TEXT',
        targeting: 'I',
        friendType: 'F',
      };
      const channelTemplates = [...templates.values()].filter(
        (t) => t.senderType === 'S' && t.owner === msgrChId,
      );
      const perTemplate = <T>(row: (templateCode: string) => T): T[] =>
        channelTemplates.map((t) => row(t.templateCode));
      switch (name) {
        case 'channelNoticeRead':
          return ok([
            { ...base, messageType: 'AT', receiveUserType: 'PhoneNumber', readCount: n('read') },
          ]);
        case 'channelBrandRead':
          return ok([{ ...brand, receiveUserType: 'PhoneNumber', readCount: n('read') }]);
        case 'channelBrandClick':
          return ok([
            {
              ...brand,
              receiveUserType: 'PhoneNumber',
              buttonClickCount: n('button'),
              listClickCount: n('list'),
              thumbnailClickCount: n('thumb'),
              etcClickCount: n('etc'),
            },
          ]);
        case 'templateNoticeRead':
          return ok(
            perTemplate((templateCode) => ({
              ...base,
              messageType: 'AT',
              templateCode,
              readCount: n(`read|${templateCode}`),
            })),
          );
        case 'templateBrandRead':
          return ok(
            perTemplate((templateCode) => ({
              ...brand,
              templateCode,
              groupTagKey: null,
              readCount: n(`read|${templateCode}`),
            })),
          );
        case 'templateNoticeClick':
          return ok(
            perTemplate((templateCode) => ({
              ...base,
              templateCode,
              messageType: 'AT',
              clickInfo: {
                buttonOrders: [n(`b1|${templateCode}`)],
                buttonType: { WL: n(`wl|${templateCode}`), AL: 0, DS: 0, MD: 0 },
                qrType: {},
                etc: n(`etc|${templateCode}`),
              },
            })),
          );
        case 'templateBrandClick':
          return ok(
            perTemplate((templateCode) => ({
              ...brand,
              templateCode,
              groupTagKey: null,
              clickInfo: {
                buttonOrders: [n(`b1|${templateCode}`)],
                imageOrders: [],
                listOrders: [],
                etc: n(`etc|${templateCode}`),
              },
            })),
          );
      }
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

  return {
    register(router: Router): void {
      // `group/all` before `group/{groupKey}`: the first matching route wins.
      const names = Object.keys(MESSENGER_MANAGEMENT_PATHS) as MessengerManagementPathName[];
      names.sort((a, b) => Number(b === 'allGroups') - Number(a === 'allGroups'));
      for (const name of names) {
        const { method, path } = MESSENGER_MANAGEMENT_PATHS[name];
        router.add(method, path.replace(/\{(\w+)\}/g, ':$1'), handlers[name]);
      }
      for (const name of Object.keys(MESSENGER_STATS) as MessengerStatsName[]) {
        router.add('GET', MESSENGER_STATS[name].path, stats(name));
      }
      router.add('POST', '/_sim/messenger/channels/:msgrChId/stat', setChannelStat);
      router.add('GET', '/_sim/messenger/templates/:templateKey', templateDetail);
      router.add('GET', '/_sim/messenger/templates/:templateKey/images/:part', templateImage);
    },
  };
};

/** The raw parts of a multipart template create, ready for the schema. */
interface TemplateParts {
  reqBody?: unknown;
  image?: { fileName: string; contentType: string; data: Buffer };
  itemHighlightImage?: { fileName: string; contentType: string; data: Buffer };
}

/**
 * Reads `reqBody` (a text field or a file part holding JSON) and the image file parts. Answers
 * the failure instead: `21000` for an unreadable body or a `reqBody` that is not JSON, `21001` for
 * an unknown, repeated or missing part, or an image sent as a text field.
 */
const readTemplateParts = (
  request: SimRequest,
): Promise<TemplateParts | { code: string; message: string }> =>
  new Promise((resolve) => {
    let problem: { code: string; message: string } | undefined;
    const refuse = (code: string, message: string) => {
      problem ??= { code, message };
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers });
    } catch (error) {
      resolve({ code: '21000', message: `multipart body: ${(error as Error).message}` });
      return;
    }
    const seen = new Set<string>();
    let reqBodyText: string | undefined;
    const parts: TemplateParts = {};
    const once = (name: string): boolean => {
      if (seen.has(name)) refuse(MESSENGER_CODES.invalidField, `${name}: part given twice`);
      seen.add(name);
      return problem === undefined;
    };
    parser.on('field', (name, value) => {
      if (name === 'reqBody') {
        if (once(name)) reqBodyText = value;
      } else if ((IMAGE_PARTS as readonly string[]).includes(name)) {
        refuse(MESSENGER_CODES.invalidField, `${name}: must be a file part`);
      } else {
        refuse(MESSENGER_CODES.invalidField, `${name}: unknown part`);
      }
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        if (name === 'reqBody') {
          if (once(name)) reqBodyText = data.toString('utf8');
        } else if (name === 'image' || name === 'itemHighlightImage') {
          if (once(name))
            parts[name] = { fileName: info.filename ?? '', contentType: info.mimeType, data };
        } else {
          refuse(MESSENGER_CODES.invalidField, `${name}: unknown part`);
        }
      });
    });
    parser.on('error', (error) =>
      resolve({ code: '21000', message: `multipart body: ${(error as Error).message}` }),
    );
    parser.on('close', () => {
      if (problem) return resolve(problem);
      if (reqBodyText === undefined) {
        return resolve({ code: MESSENGER_CODES.invalidField, message: 'reqBody: part is missing' });
      }
      try {
        resolve({ ...parts, reqBody: JSON.parse(reqBodyText) });
      } catch {
        resolve({ code: '21000', message: 'reqBody: part is not valid JSON' });
      }
    });
    parser.end(request.body);
  });
