import { BearerGatewayClient, type BearerGatewayClientOptions } from './bearer/bearer-client.ts';
import type { ResendOptions } from './bearer/fresh-token-retry.ts';
import { type Endpoint, type GatewayCall, parseData } from './envelope.ts';
import { classifyCode, GatewayAuthenticationError, type GatewayCodeFamily } from './errors.ts';
import { downloadMoFileWith } from './mo-files.ts';
import { GatewayRequestInvalidError, validateRequest } from './request-validation.ts';
// The schema modules themselves, not `schemas/index.ts`: a Lambda bundle builds every schema of
// every module it reaches, at start (docs/performance.md, `cold-start`).
import { ScheduledSendDataSchema, SendResultItemSchema } from './schemas/common.ts';
import { MoListDataSchema, MoSampleDataSchema } from './schemas/mo.ts';
import {
  OptOutDeleteRequestSchema,
  OptOutListDataSchema,
  OptOutListQuerySchema,
  OptOutPeriodQuerySchema,
  OptOutPeriodResponseSchema,
  OptOutRegisterRequestSchema,
} from './schemas/opt-out.ts';
import {
  ConfirmReportsRequestSchema,
  PollReportsResponseDataSchema,
  StatusQueryDataSchema,
  StatusQueryRequestSchema,
} from './schemas/reports.ts';
import type { RcsReplyResultItemSchema, SEND_ENDPOINTS } from './schemas/send.ts';
import {
  ClickUrlCreateDataSchema,
  ClickUrlCreateRequestSchema,
  ClickUrlDeleteRequestSchema,
} from './schemas/tracking-urls.ts';
import * as z from './schemas/zod.ts';
import { listClickUrlsWith, URL_STATS, urlStatsWith } from './tracking-url-calls.ts';
import type { StreamedAttachment } from './transport.ts';

export { GatewayRequestInvalidError, validateRequest };

export type SendEndpointName = keyof typeof SEND_ENDPOINTS;
export type SendRequest<N extends SendEndpointName> = z.input<(typeof SEND_ENDPOINTS)[N]['schema']>;
export type SendResultItem = z.output<typeof SendResultItemSchema>;
export type RcsReplyResultItem = z.output<typeof RcsReplyResultItemSchema>;

/** What a send call answered: per-recipient results, or the acknowledgement of a scheduled send. */
export type SendOutcome<Item = SendResultItem> =
  | { readonly kind: 'immediate'; readonly results: readonly Item[] }
  | { readonly kind: 'scheduled'; readonly regDt: string; readonly webReqId: string };

/** Options of an SMS or MMS send: `legacyPath` sends through `{api_url}/msg/v1/…` instead of `{send_url}/xms/…`. */
export interface TextSendOptions extends ResendOptions {
  /** @default false */
  readonly legacyPath?: boolean;
}

/** An attachment for the multipart MMS endpoint. */
export interface MmsFile {
  readonly name: string;
  readonly contentType: string;
  readonly data: Uint8Array;
}

/** The family of one recipient's result code: accepted, duplicate (already accepted), retryable… */
export const recipientResultFamily = (item: { code: string }): GatewayCodeFamily =>
  classifyCode(item.code);

export interface GatewayClientOptions extends BearerGatewayClientOptions {
  /** API key for the opt-out endpoints, which authenticate with an `apiKey` header. */
  readonly apiKey?: string;
}

const endpoint = (host: Endpoint['host'], method: Endpoint['method'], path: string): Endpoint => ({
  host,
  method,
  path,
});

const ENDPOINTS = {
  pollReports: endpoint('api', 'GET', '/msg/v1.2/report'),
  confirmReports: endpoint('api', 'POST', '/msg/v1.2/report/result'),
  queryStatus: endpoint('api', 'POST', '/msg/v1/sent'),
  listMo: endpoint('api', 'GET', '/mo/v1/msg'),
  moSample: endpoint('api', 'GET', '/mo/direct/v1/mmsMoSample'),
  optOutRegister: endpoint('api', 'POST', '/client/v1/080/ars080Reject'),
  optOutList: endpoint('mnt', 'POST', '/client/v1.2/080/ars080RejectList'),
  optOutDelete: endpoint('api', 'DELETE', '/client/v1/080/ars080RejectDelete'),
  optOutPeriod: endpoint('mnt', 'GET', '/client/v1.1/080/ars080BlockNumberList'),
  createClickUrl: endpoint('api', 'POST', '/msg/v1/createClickUrl'),
  deleteClickUrl: endpoint('api', 'POST', '/msg/v1/deleteClickUrl'),
} as const;

/**
 * The send endpoints' schemas (`schemas/send.ts`, with the CP949 table its text limits count
 * with), imported by the first send: the functions that only poll, query or download never load
 * them, and code splitting leaves them out of what their cold start reads (docs/performance.md,
 * `cold-start`).
 */
const sendSchemas = () => import('./schemas/send.ts');

/**
 * The typed gateway client for spec 01: every request is validated by its schema before the call,
 * every answer by its schema after it. Bearer calls take their token from the {@link TokenProvider};
 * on an authentication-family answer the client reports the token invalid, takes a fresh one and
 * retries once, then fails with {@link GatewayAuthenticationError}.
 */
export class GatewayClient extends BearerGatewayClient {
  private readonly apiKey: string | undefined;

  constructor(options: GatewayClientOptions) {
    super(options);
    this.apiKey = options.apiKey;
  }

  // --- Sending (spec 01 §4.3–4.10) -------------------------------------------------------------

  /** Sends through any send endpoint by name; the body is validated with that endpoint's schema. */
  async send<N extends Exclude<SendEndpointName, 'rcsReply' | 'mmsMultipart'>>(
    name: N,
    body: SendRequest<N>,
    options: ResendOptions = {},
  ): Promise<SendOutcome> {
    const { schema, ...target } = (await sendSchemas()).SEND_ENDPOINTS[name];
    const json = validateRequest(schema, body, target);
    const envelope = await this.withBearer({ endpoint: target, json }, options);
    return toSendOutcome(envelope.data, SendResultItemSchema, target, json.resvYn);
  }

  sendSms(body: SendRequest<'sms'>, options: TextSendOptions = {}): Promise<SendOutcome> {
    return this.send(options.legacyPath ? 'smsLegacy' : 'sms', body, options);
  }

  sendMms(body: SendRequest<'mms'>, options: TextSendOptions = {}): Promise<SendOutcome> {
    return this.send(options.legacyPath ? 'mmsLegacy' : 'mms', body, options);
  }

  /** MMS with the files in the request (`multipart/form-data`: parts `reqMsg` and `parts`). */
  async sendMmsWithFiles(
    body: SendRequest<'mmsMultipart'>,
    files: readonly MmsFile[],
    options: ResendOptions = {},
  ): Promise<SendOutcome> {
    const { schema, ...target } = (await sendSchemas()).SEND_ENDPOINTS.mmsMultipart;
    const reqMsg = validateRequest(schema, body, target);
    if (files.length < 1 || files.length > 3) {
      throw new GatewayRequestInvalidError(`${target.method} ${target.path}`, [
        { code: 'custom', path: ['parts'], message: 'attach 1 to 3 files', input: files.length },
      ]);
    }
    // Built afresh for every attempt, so the token retry never depends on a form being reusable.
    const form = () => {
      const parts = new FormData();
      parts.append('reqMsg', new Blob([JSON.stringify(reqMsg)], { type: 'application/json' }));
      for (const file of files)
        parts.append('parts', new Blob([file.data], { type: file.contentType }), file.name);
      return parts;
    };
    const envelope = await this.withBearer({ endpoint: target, form }, options);
    return toSendOutcome(envelope.data, SendResultItemSchema, target, reqMsg.resvYn);
  }

  /** RCS on one of its three paths: `/msg/v1/rcs`, `/msg/v1.1/rcs`, or the integrated `{send}/rcs/v1.1`. */
  sendRcs<V extends 'rcsV1' | 'rcsV11' | 'rcsIntegrated'>(
    variant: V,
    body: SendRequest<V>,
    options: ResendOptions = {},
  ): Promise<SendOutcome> {
    return this.send(variant, body, options);
  }

  /** Two-way RCS reply; results carry `replyId` and `chatbotId` instead of `phone`. */
  async sendRcsReply(
    body: SendRequest<'rcsReply'>,
    options: ResendOptions = {},
  ): Promise<SendOutcome<RcsReplyResultItem>> {
    const { SEND_ENDPOINTS: endpoints, RcsReplyResultItemSchema: resultItem } = await sendSchemas();
    const { schema, ...target } = endpoints.rcsReply;
    const json = validateRequest(schema, body, target);
    const envelope = await this.withBearer({ endpoint: target, json }, options);
    // An RCS reply cannot be scheduled.
    return toSendOutcome(envelope.data, resultItem, target, undefined);
  }

  sendPush(body: SendRequest<'push'>, options: ResendOptions = {}): Promise<SendOutcome> {
    return this.send('push', body, options);
  }

  sendMessengerNotice(
    body: SendRequest<'messengerNotice'>,
    options: ResendOptions = {},
  ): Promise<SendOutcome> {
    return this.send('messengerNotice', body, options);
  }

  sendBrandTemplate(
    body: SendRequest<'brandTemplate'>,
    options: ResendOptions = {},
  ): Promise<SendOutcome> {
    return this.send('brandTemplate', body, options);
  }

  sendBrandFree(body: SendRequest<'brandFree'>, options: ResendOptions = {}): Promise<SendOutcome> {
    return this.send('brandFree', body, options);
  }

  // --- Reports and status (spec 01 §4.11–4.13) -------------------------------------------------

  /** One poll; `null` when no report is waiting (the caller then waits at least 10 s). */
  async pollReports() {
    const envelope = await this.withBearer({ endpoint: ENDPOINTS.pollReports });
    return parseData(PollReportsResponseDataSchema, envelope.data, ENDPOINTS.pollReports);
  }

  /** Confirms polled report keys; unconfirmed keys come back after 120 s. */
  async confirmReports(rptKeyLst: readonly string[]): Promise<void> {
    const json = validateRequest(
      ConfirmReportsRequestSchema,
      { rptKeyLst },
      ENDPOINTS.confirmReports,
    );
    await this.withBearer({ endpoint: ENDPOINTS.confirmReports, json });
  }

  /** Status of up to 10 `cliKey`s (REG, ING, DONE, OVER_DATE, INVALID_KEY). */
  async queryStatus(cliKeyLst: z.input<typeof StatusQueryRequestSchema>['cliKeyLst']) {
    const json = validateRequest(StatusQueryRequestSchema, { cliKeyLst }, ENDPOINTS.queryStatus);
    const envelope = await this.withBearer({ endpoint: ENDPOINTS.queryStatus, json });
    return parseData(StatusQueryDataSchema, envelope.data, ENDPOINTS.queryStatus);
  }

  // --- Inbound messages (spec 01 §4.14) --------------------------------------------------------

  async listMo() {
    const envelope = await this.withBearer({ endpoint: ENDPOINTS.listMo });
    return parseData(MoListDataSchema, envelope.data, ENDPOINTS.listMo);
  }

  /** Streams the file of an MO (valid 7 days); the caller consumes or destroys `body`. */
  downloadMoFile(moKey: string): Promise<StreamedAttachment> {
    return this.withToken((token) => downloadMoFileWith(this.http, token, moKey));
  }

  async moSample() {
    const envelope = await this.withBearer({ endpoint: ENDPOINTS.moSample });
    return parseData(MoSampleDataSchema, envelope.data, ENDPOINTS.moSample);
  }

  // --- Opt-out list (spec 01 §4.15; `apiKey` header) ---------------------------------------------

  registerOptOut(entries: z.input<typeof OptOutRegisterRequestSchema>): Promise<void> {
    return this.sendWithApiKey(ENDPOINTS.optOutRegister, OptOutRegisterRequestSchema, entries);
  }

  deleteOptOut(entry: z.input<typeof OptOutDeleteRequestSchema>): Promise<void> {
    return this.sendWithApiKey(ENDPOINTS.optOutDelete, OptOutDeleteRequestSchema, entry);
  }

  async listOptOut(query: z.input<typeof OptOutListQuerySchema>) {
    const envelope = await this.queryWithApiKey(ENDPOINTS.optOutList, OptOutListQuerySchema, query);
    return parseData(OptOutListDataSchema, envelope.data, ENDPOINTS.optOutList);
  }

  /** Blocked and unblocked numbers of an 080 number within a period, with paging `meta`. */
  async listOptOutPeriod(query: z.input<typeof OptOutPeriodQuerySchema>) {
    const target = ENDPOINTS.optOutPeriod;
    const envelope = await this.queryWithApiKey(target, OptOutPeriodQuerySchema, query);
    return parseData(OptOutPeriodResponseSchema, envelope, target);
  }

  // --- Tracking URLs (spec 01 §4.16) -----------------------------------------------------------

  /** Creates a tracking URL; answers its `urlId`. */
  async createClickUrl(request: z.input<typeof ClickUrlCreateRequestSchema>) {
    const json = validateRequest(ClickUrlCreateRequestSchema, request, ENDPOINTS.createClickUrl);
    const envelope = await this.withBearer({ endpoint: ENDPOINTS.createClickUrl, json });
    return parseData(ClickUrlCreateDataSchema, envelope.data, ENDPOINTS.createClickUrl);
  }

  /** Deletes a tracking URL for good (messages already sent keep working). */
  async deleteClickUrl(urlId: string): Promise<void> {
    const query = validateRequest(ClickUrlDeleteRequestSchema, { urlId }, ENDPOINTS.deleteClickUrl);
    await this.withBearer({ endpoint: ENDPOINTS.deleteClickUrl, query });
  }

  listClickUrls(page = 1) {
    return listClickUrlsWith(this.bearer, page);
  }

  // One call each, built from the URL_STATS table (spec 01 §4.16 statistics).
  readonly urlStatsByUrl = urlStatsWith(this.bearer, URL_STATS.byUrl);
  readonly urlStatsByChannel = urlStatsWith(this.bearer, URL_STATS.byChannel);
  readonly urlStatsByReceiver = urlStatsWith(this.bearer, URL_STATS.byReceiver);
  readonly urlStatsSendDay = urlStatsWith(this.bearer, URL_STATS.sendDay);
  readonly urlStatsSendHour = urlStatsWith(this.bearer, URL_STATS.sendHour);
  readonly urlStatsClickDay = urlStatsWith(this.bearer, URL_STATS.clickDay);
  readonly urlStatsClickHour = urlStatsWith(this.bearer, URL_STATS.clickHour);

  // --- Internals -------------------------------------------------------------------------------

  /** An opt-out call with a JSON body checked by `schema`; its answer carries nothing to read. */
  private async sendWithApiKey<S extends z.ZodMiniType>(
    target: Endpoint,
    schema: S,
    body: z.input<S>,
  ): Promise<void> {
    const json = validateRequest(schema, body, target);
    await this.withApiKey({ endpoint: target, json });
  }

  /** An opt-out read with its query checked by `schema`; answers the whole envelope. */
  private queryWithApiKey<S extends z.ZodMiniType<GatewayCall['query']>>(
    target: Endpoint,
    schema: S,
    query: z.input<S>,
  ) {
    const params = validateRequest(schema, query, target);
    return this.withApiKey({ endpoint: target, query: params });
  }

  /** An opt-out call: these authenticate with the `apiKey` header instead of a token. */
  private withApiKey(call: Omit<GatewayCall, 'auth'>) {
    if (this.apiKey === undefined)
      throw new Error('the opt-out endpoints need the apiKey option of GatewayClient');
    return this.http.call({ ...call, auth: { apiKey: this.apiKey } });
  }
}

/**
 * Reads a send answer as the spec does: only a request with `resvYn=Y` is answered with the
 * `{regDt, webReqId}` of a scheduled send; an immediate send is answered with one item per
 * recipient. So an immediate send whose `data` is null, missing or an object has no per-recipient
 * results: it is an unreadable answer ({@link GatewayResponseError}), which the sender records as
 * an unknown outcome, never as "scheduled".
 */
const toSendOutcome = <S extends z.ZodMiniType>(
  data: unknown,
  itemSchema: S,
  target: Endpoint,
  resvYn: string | undefined,
): SendOutcome<z.output<S>> => {
  if (resvYn !== 'Y')
    return { kind: 'immediate', results: parseData(z.array(itemSchema), data, target) };
  const scheduled = parseData(ScheduledSendDataSchema, data, target);
  return { kind: 'scheduled', regDt: scheduled.regDt, webReqId: scheduled.webReqId };
};
