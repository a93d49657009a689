import { Blob } from 'node:buffer';
import { BearerGatewayClient } from '../bearer/bearer-client.ts';
import { type Endpoint, parseData } from '../envelope.ts';
import { messengerStatsWith } from '../messenger-stats-call.ts';
import { validateRequest } from '../request-validation.ts';
import {
  ChannelCategoryListDataSchema,
  ChannelCreateRequestSchema,
  ChannelDetailDataSchema,
  ChannelGroupKeyRequestSchema,
  ChannelGroupListDataSchema,
  ChannelGroupMemberDataSchema,
  ChannelGroupMemberListDataSchema,
  ChannelGroupMemberRequestSchema,
  ChannelGroupOfChannelListDataSchema,
  ChannelIdRequestSchema,
  ChannelListDataSchema,
  ChannelListRequestSchema,
  ChannelTokenDataSchema,
  ChannelTokenRequestSchema,
  MESSENGER_MANAGEMENT_PATHS,
  type MessengerManagementPathName,
  RelayInfoDataSchema,
  type TemplateActionRequestInput,
  TemplateActionRequestSchema,
  TemplateCategoryListDataSchema,
  TemplateCommentRequestSchema,
  TemplateCreateDataSchema,
  type TemplateCreateMultipartRequest,
  TemplateCreateMultipartRequestSchema,
  type TemplateCreateRequestInput,
  TemplateCreateRequestSchema,
  type TemplateImages,
  TemplateListDataSchema,
  TemplateListRequestSchema,
  type TemplateStatusCode,
} from '../schemas/messenger-management.ts';
import type {
  MessengerStatsData,
  MessengerStatsName,
  MessengerStatsQueryInput,
} from '../schemas/messenger-statistics.ts';
import type * as z from '../schemas/zod.ts';

/**
 * Thrown before the call when a template is not in a state the operation may start from: review
 * request and delete need state `T` (spec 02 §3, §4.3); a review request also takes `S` when the
 * caller says it is an internal-approval customer ({@link TemplateReviewOptions}). `status` is
 * `undefined` when the template is not in the owner's list at all.
 */
export class TemplateStateError extends Error {
  override readonly name = 'TemplateStateError';
  constructor(
    readonly operation: 'request' | 'delete',
    readonly templateCode: string,
    readonly status: string | undefined,
    /** The states the operation was allowed from, as the refusal names them. */
    readonly allowed: readonly TemplateStatusCode[] = ['T'],
    options?: { cause?: unknown },
  ) {
    super(
      status === undefined
        ? `cannot ${operation} template ${templateCode}: not found for this channel or group`
        : `cannot ${operation} template ${templateCode}: its status is ${status}, ${operation} needs ${allowed.join(' or ')}`,
      options,
    );
  }
}

/** Options of the state-checked template operations. */
export interface TemplateStateOptions {
  /**
   * The template's status as the caller already knows it (from a list it just read). Given, the
   * client checks it and makes no extra call; omitted, the client reads the owner's template
   * list first. The gateway has no single-template read, so the list is the only source.
   */
  readonly currentStatus?: TemplateStatusCode;
}

/** Options of the review request. */
export interface TemplateReviewOptions extends TemplateStateOptions {
  /**
   * Also request review of a rejected template (state `S`), not only a registered one (`T`).
   * Only for internal-approval customers: spec 02 §3 allows them to request again after a
   * rejection, while §4.3 allows `T` only, which is what any other account gets from the gateway.
   * @default false
   */
  readonly afterRejection?: boolean;
}

const endpoint = (name: MessengerManagementPathName): Endpoint => ({
  host: 'mnt',
  ...MESSENGER_MANAGEMENT_PATHS[name],
});

/**
 * The typed client of the management API of spec 02 (messenger channels, channel groups,
 * notification templates, read/click statistics), all on {mnt_url}. Like {@link GatewayClient}:
 * requests are validated before the call and `data` after it; bearer calls retry once with a
 * fresh token on an authentication-family answer.
 */
export class GatewayManagementClient extends BearerGatewayClient {
  // --- Categories and groups (spec 02 §4.1) ----------------------------------------------------

  async listTemplateCategories() {
    return this.post('templateCategories', undefined, TemplateCategoryListDataSchema);
  }

  async listChannelCategories() {
    return this.post('channelCategories', undefined, ChannelCategoryListDataSchema);
  }

  /** Groups that contain the channel. */
  async listGroupsOfChannel(msgrChId: string) {
    const json = validateRequest(ChannelIdRequestSchema, { msgrChId }, endpoint('groupsOfChannel'));
    return this.post('groupsOfChannel', json, ChannelGroupOfChannelListDataSchema);
  }

  /** Adds a channel to a group; a channel already in the group is refused by the gateway. */
  async addChannelToGroup(request: z.input<typeof ChannelGroupMemberRequestSchema>) {
    const json = validateRequest(ChannelGroupMemberRequestSchema, request, endpoint('addToGroup'));
    return this.post('addToGroup', json, ChannelGroupMemberDataSchema);
  }

  /** Channels of one group. */
  async listGroupMembers(groupKey: string) {
    const target = endpoint('groupMembers');
    const pathParams = validateRequest(ChannelGroupKeyRequestSchema, { groupKey }, target);
    const envelope = await this.withBearer({ endpoint: target, pathParams });
    return parseData(ChannelGroupMemberListDataSchema, envelope.data, target);
  }

  async listGroups() {
    const target = endpoint('allGroups');
    const envelope = await this.withBearer({ endpoint: target });
    return parseData(ChannelGroupListDataSchema, envelope.data, target);
  }

  /** Takes a channel out of a group; the channel itself stays. */
  async removeChannelFromGroup(request: z.input<typeof ChannelGroupMemberRequestSchema>) {
    const json = validateRequest(
      ChannelGroupMemberRequestSchema,
      request,
      endpoint('removeFromGroup'),
    );
    return this.post('removeFromGroup', json, ChannelGroupMemberDataSchema);
  }

  // --- Channels (spec 02 §4.2) -----------------------------------------------------------------

  /** Channels by period, from `standardDateTime` (`YYYYMMDDHHMMSS`). */
  async listChannels(request: z.input<typeof ChannelListRequestSchema>) {
    const json = validateRequest(ChannelListRequestSchema, request, endpoint('listChannels'));
    return this.post('listChannels', json, ChannelListDataSchema);
  }

  /** Sends the relay authentication code to the channel administrator's device. */
  async requestChannelToken(request: z.input<typeof ChannelTokenRequestSchema>) {
    const json = validateRequest(ChannelTokenRequestSchema, request, endpoint('channelToken'));
    return this.post('channelToken', json, ChannelTokenDataSchema);
  }

  /** Registers the channel with the codes received after {@link requestChannelToken}. */
  async createChannel(request: z.input<typeof ChannelCreateRequestSchema>): Promise<void> {
    const json = validateRequest(ChannelCreateRequestSchema, request, endpoint('createChannel'));
    await this.withBearer({ endpoint: endpoint('createChannel'), json });
  }

  /** Restores a deleted channel id. */
  async restoreChannel(msgrChId: string): Promise<void> {
    const json = validateRequest(ChannelIdRequestSchema, { msgrChId }, endpoint('restoreChannel'));
    await this.withBearer({ endpoint: endpoint('restoreChannel'), json });
  }

  /** Activates a dormant channel. */
  async recoverChannel(msgrChId: string): Promise<void> {
    const json = validateRequest(ChannelIdRequestSchema, { msgrChId }, endpoint('recoverChannel'));
    await this.withBearer({ endpoint: endpoint('recoverChannel'), json });
  }

  /** Usable relay ids. */
  async relayInfo() {
    return this.post('relayInfo', undefined, RelayInfoDataSchema);
  }

  async getChannel(msgrChId: string) {
    const json = validateRequest(ChannelIdRequestSchema, { msgrChId }, endpoint('getChannel'));
    return this.post('getChannel', json, ChannelDetailDataSchema);
  }

  // --- Templates (spec 02 §4.3, §4.4) ----------------------------------------------------------

  /**
   * Creates a template; it starts in state `T`. Without images the body is JSON. With `image`
   * and/or `itemHighlightImage` it is `multipart/form-data` (parts `reqBody` as JSON and the
   * images); the images are checked before the call (JPEG or PNG, at most 500 KB, type matching
   * the bytes and the name) and a thumbnail (`itemHighlightImage`) shortens the highlight limits
   * to 21 and 13 characters. The form is built afresh for each attempt of the token retry.
   */
  async createTemplate(request: TemplateCreateRequestInput, images: TemplateImages = {}) {
    const target = endpoint('createTemplate');
    const attached = attachedImages(images);
    if (Object.keys(attached).length === 0) {
      const json = validateRequest(TemplateCreateRequestSchema, request, target);
      return this.post('createTemplate', json, TemplateCreateDataSchema);
    }
    const parts = validateRequest(
      TemplateCreateMultipartRequestSchema,
      { reqBody: request, ...attached },
      target,
    );
    const envelope = await this.withBearer({
      endpoint: target,
      form: () => templateCreateForm(parts),
    });
    return parseData(TemplateCreateDataSchema, envelope.data, target);
  }

  async listTemplates(request: z.input<typeof TemplateListRequestSchema>) {
    const json = validateRequest(TemplateListRequestSchema, request, endpoint('listTemplates'));
    return this.post('listTemplates', json, TemplateListDataSchema);
  }

  /**
   * Requests review (T → R). Checked before the call: the template must be in state `T`, or in
   * `T` or `S` with `afterRejection` ({@link TemplateReviewOptions}); otherwise
   * {@link TemplateStateError} and no request is sent.
   */
  async requestTemplateReview(
    request: TemplateActionRequestInput,
    options: TemplateReviewOptions = {},
  ): Promise<void> {
    const allowed: readonly TemplateStatusCode[] = options.afterRejection ? ['T', 'S'] : ['T'];
    await this.templateAction('request', 'requestTemplate', request, options, allowed);
  }

  /**
   * Deletes a template for good. Checked before the call: the template must be in state `T`
   * ({@link TemplateStateOptions}); otherwise {@link TemplateStateError} and no delete is sent.
   */
  async deleteTemplate(
    request: TemplateActionRequestInput,
    options: TemplateStateOptions = {},
  ): Promise<void> {
    await this.templateAction('delete', 'deleteTemplate', request, options, ['T']);
  }

  async commentTemplate(request: z.input<typeof TemplateCommentRequestSchema>): Promise<void> {
    const json = validateRequest(
      TemplateCommentRequestSchema,
      request,
      endpoint('commentTemplate'),
    );
    await this.withBearer({ endpoint: endpoint('commentTemplate'), json });
  }

  // --- Statistics (spec 02 §4.5) ---------------------------------------------------------------

  /** One of the seven read/click statistics, by name (`channelNoticeRead`, `templateBrandClick`…). */
  stats<N extends MessengerStatsName>(
    name: N,
    query: MessengerStatsQueryInput,
  ): Promise<MessengerStatsData<N>> {
    return messengerStatsWith(this.bearer, name, query);
  }

  // --- Internals -------------------------------------------------------------------------------

  private async templateAction(
    operation: 'request' | 'delete',
    name: 'requestTemplate' | 'deleteTemplate',
    request: TemplateActionRequestInput,
    options: TemplateStateOptions,
    allowed: readonly TemplateStatusCode[],
  ): Promise<void> {
    const target = endpoint(name);
    const json = validateRequest(TemplateActionRequestSchema, request, target);
    const status = options.currentStatus ?? (await this.currentStatus(json));
    if (status === undefined || !(allowed as readonly string[]).includes(status)) {
      throw new TemplateStateError(operation, json.templateCode, status, allowed);
    }
    await this.withBearer({ endpoint: target, json });
  }

  /** The template's status from its owner's list; `undefined` when it is not there. */
  private async currentStatus(
    request: z.output<typeof TemplateActionRequestSchema>,
  ): Promise<string | undefined> {
    const templates = await this.listTemplates({
      ...(request.msgrChId === undefined ? {} : { msgrChId: request.msgrChId }),
      ...(request.msgrGrpId === undefined ? {} : { msgrGrpId: request.msgrGrpId }),
      senderType: request.senderKeyType,
    });
    const found = templates.find((t) => t.templateCode === request.templateCode);
    return found === undefined ? undefined : (found.templateStatusCode ?? undefined);
  }

  private async post<D extends z.ZodMiniType>(
    name: MessengerManagementPathName,
    json: unknown,
    dataSchema: D,
  ): Promise<z.output<D>> {
    const target = endpoint(name);
    const envelope = await this.withBearer({
      endpoint: target,
      ...(json === undefined ? {} : { json }),
    });
    return parseData(dataSchema, envelope.data, target);
  }
}

/** The images that are there: an `undefined` entry is no image, not an invalid one. */
const attachedImages = (images: TemplateImages): TemplateImages =>
  Object.fromEntries(Object.entries(images).filter(([, image]) => image !== undefined));

/**
 * The multipart body of a template create, in the order of the spec's parts (the platform's
 * `FormData` and `Blob`).
 */
const templateCreateForm = (parts: TemplateCreateMultipartRequest): FormData => {
  const form = new FormData();
  form.append('reqBody', new Blob([JSON.stringify(parts.reqBody)], { type: 'application/json' }));
  for (const name of ['itemHighlightImage', 'image'] as const) {
    const image = parts[name];
    if (image !== undefined)
      form.append(name, new Blob([image.data], { type: image.contentType }), image.fileName);
  }
  return form;
};
