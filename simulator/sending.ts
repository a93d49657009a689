import busboy from 'busboy';
import type { z } from 'zod';
import {
  BrandFreeRequestSchema,
  BrandTemplateRequestSchema,
  MessengerNoticeRequestSchema,
  MmsMultipartRequestSchema,
  MmsRequestSchema,
  PushRequestSchema,
  RcsIntegratedRequestSchema,
  RcsReplyRequestSchema,
  RcsV1RequestSchema,
  RcsV11RequestSchema,
  SmsRequestSchema,
} from '../functions/commons/gateway/schemas/index.ts';
import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import { envelope, ok, type SentRecipient, type SimChannel, type SimContext } from './context.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';

/**
 * Codes the send endpoints answer besides `10000`. Spec 01 §7 leaves invalid-field codes open;
 * the field notes name `21012`, `21014`, `21051`, `29002`, `29024`; the rest are our choice.
 */
export const SEND_CODES = {
  /** Body is not JSON (or the multipart body cannot be read). HTTP 400. */
  malformedBody: '21000',
  /** Any other field rule of the request schemas; the message names the path. HTTP 400. */
  invalidField: '21001',
  tooManyRecipients: '21012',
  badFallback: '21014',
  /** `resvReqDt` in the past or more than 30 days ahead (KST, simulated clock). HTTP 400. */
  badReservationTime: '21030',
  /** More than 3 attachments (multipart files plus `fileIdLst`). HTTP 400. */
  tooManyAttachments: '21031',
  /** A fallback channel equal to the main channel or listed twice. */
  fallbackChannelRepeated: '21051',
  rateLimited: '29002',
  duplicateKey: '29024',
} as const;

const MAX_ATTACHMENTS = 3;
const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;

/** One recipient as every send schema writes it (push may omit `phone`). */
interface RecipientFields {
  readonly cliKey: string;
  readonly phone?: string | undefined;
  readonly userCustomFields?: Record<string, unknown> | undefined;
}

/**
 * The fields of a validated send body the simulator reads. Every request schema's output must
 * be assignable to it, so a renamed field in a schema fails type-checking here.
 */
interface SendFields {
  readonly resvYn?: string | undefined;
  readonly resvReqDt?: string | undefined;
  readonly campaignId?: string | undefined;
  readonly recvInfoLst?: readonly RecipientFields[] | undefined;
  readonly fbInfoLst?: ReadonlyArray<{ readonly ch: string }> | undefined;
  readonly fileIdLst?: readonly string[] | undefined;
  readonly messagebaseId?: string | undefined;
  readonly productCode?: string | undefined;
  readonly targeting?: string | undefined;
  // Two-way reply: one recipient at the top level.
  readonly cliKey?: string | undefined;
  readonly phone?: string | undefined;
  readonly replyId?: string | undefined;
  readonly chatbotId?: string | undefined;
}

/** What a send call is billed and reported as. */
interface Classification {
  readonly channel: SimChannel;
  readonly productCode: string;
}

interface SendEndpoint {
  readonly path: string;
  readonly schema: z.ZodType<SendFields>;
  readonly multipart?: boolean;
  /** The main channel when it is a fallback channel too (an SMS send cannot fall back to SMS). */
  readonly mainFallbackChannel?: 'SMS' | 'MMS';
  readonly isBi?: boolean;
  readonly classify: (fields: SendFields, attachments: number) => Classification;
}

const fixed =
  (channel: SimChannel, productCode: string = channel) =>
  (): Classification => ({ channel, productCode });

// MMS without attachments is billed as LMS (field notes: products SMS, LMS, MMS).
const mms = (_fields: SendFields, attachments: number): Classification =>
  attachments > 0 ? fixed('MMS')() : fixed('LMS')();

/**
 * RCS product: the agency's `productCode` when given; otherwise read from the standard message
 * bases (`SS…` short text, `SL…` long text, `SM…` media — an assumption, the spec is silent) and
 * `ITMPL` (template) for every other `messagebaseId`.
 */
const rcs = (fields: SendFields): Classification => {
  if (fields.productCode) return fixed('RCS', fields.productCode)();
  const base = fields.messagebaseId ?? '';
  if (base.startsWith('SS')) return fixed('RCS', 'SMS')();
  if (base.startsWith('SL')) return fixed('RCS', 'LMS')();
  if (base.startsWith('SM')) return fixed('RCS', 'MMS')();
  return fixed('RCS', 'ITMPL')();
};

// Targeting `I` reaches channel friends only; `M` and `N` may reach non-friends (assumption).
const brand = (fields: SendFields): Classification =>
  fixed('BRAND', fields.targeting === 'I' ? 'BRDF' : 'BRDNF')();

/** Every send path of spec 01 §4.3–4.10. */
const ENDPOINTS: readonly SendEndpoint[] = [
  {
    path: '/xms/sms/v1',
    schema: SmsRequestSchema,
    mainFallbackChannel: 'SMS',
    classify: fixed('SMS'),
  },
  {
    path: '/msg/v1/sms',
    schema: SmsRequestSchema,
    mainFallbackChannel: 'SMS',
    classify: fixed('SMS'),
  },
  { path: '/xms/mms/v1', schema: MmsRequestSchema, mainFallbackChannel: 'MMS', classify: mms },
  { path: '/msg/v1/mms', schema: MmsRequestSchema, mainFallbackChannel: 'MMS', classify: mms },
  {
    path: '/xms/mms/file/v1',
    schema: MmsMultipartRequestSchema,
    multipart: true,
    mainFallbackChannel: 'MMS',
    classify: mms,
  },
  { path: '/msg/v1/rcs', schema: RcsV1RequestSchema, classify: rcs },
  { path: '/msg/v1.1/rcs', schema: RcsV11RequestSchema, classify: rcs },
  { path: '/rcs/v1.1', schema: RcsIntegratedRequestSchema, classify: rcs },
  {
    path: '/rcs/bi/v1.1',
    schema: RcsReplyRequestSchema,
    isBi: true,
    classify: (fields) => fixed('RCS', fields.productCode ?? 'CHAT')(),
  },
  { path: '/msg/v1/push', schema: PushRequestSchema, classify: fixed('PUSH') },
  // The spec names no product code for notification messages; the simulator reports `NOTICE`.
  {
    path: '/msgr/notice/v1.2',
    schema: MessengerNoticeRequestSchema,
    classify: fixed('MSGR', 'NOTICE'),
  },
  { path: '/msgr/brand/tmplt/v1', schema: BrandTemplateRequestSchema, classify: brand },
  { path: '/msgr/brand/custom/v1', schema: BrandFreeRequestSchema, classify: brand },
];

export interface SendingSnapshot {
  /** Send calls answered `10000`. */
  readonly sends: number;
  readonly recipientsAccepted: number;
  readonly duplicateRecipients: number;
  /** Send calls answered with a top-level error (auth failures excluded). */
  readonly rejectedSends: number;
  /** Send calls refused `29002` because their recipients did not fit the TPS quota. */
  readonly quotaRefusals: number;
}

const reject = (code: string, message: string): SimResponse =>
  envelope(code, message, undefined, 400);

/** The send endpoints: validation, quota, duplicates, scheduling and recording of recipients. */
export const createSending = (ctx: SimContext) => {
  const counts = {
    sends: 0,
    recipientsAccepted: 0,
    duplicateRecipients: 0,
    rejectedSends: 0,
    quotaRefusals: 0,
  };
  // Per-recipient TPS quota over one simulated second (field notes: budget per recipient).
  const quota = { second: Number.NaN, used: 0 };

  const takeBurstFault = (): SimResponse | undefined => {
    if (ctx.faults.rateLimitBurst <= 0) return undefined;
    ctx.faults.rateLimitBurst -= 1;
    return reject(SEND_CODES.rateLimited, 'rate limit exceeded (simulated burst); retry later');
  };

  const takeQuota = (recipients: number): SimResponse | undefined => {
    const second = Math.floor(ctx.clock.now() / 1000);
    if (second !== quota.second) Object.assign(quota, { second, used: 0 });
    if (quota.used + recipients > ctx.options.tpsQuota) {
      counts.quotaRefusals += 1;
      return reject(
        SEND_CODES.rateLimited,
        `rate limit exceeded: ${quota.used} of ${ctx.options.tpsQuota} recipients this second, ${recipients} more asked`,
      );
    }
    quota.used += recipients;
    return undefined;
  };

  /** The simulated instant a scheduled send goes out, or the reason it cannot be scheduled. */
  const scheduledAt = (fields: SendFields): number | SimResponse | undefined => {
    if (fields.resvYn !== 'Y' || fields.resvReqDt === undefined) return undefined;
    const iso = parseGatewayDateTime(fields.resvReqDt);
    const at = iso === undefined ? Number.NaN : Date.parse(iso);
    const now = ctx.clock.now();
    if (Number.isNaN(at) || at <= now || at > now + MAX_SCHEDULE_AHEAD_MS) {
      return reject(
        SEND_CODES.badReservationTime,
        `resvReqDt ${fields.resvReqDt} must be after ${formatKst(now, 'YYYY-MM-DD HH:mm')} and at most 30 days ahead (KST)`,
      );
    }
    return at;
  };

  const isDuplicate = (cliKey: string): boolean => {
    const previous = ctx.state.recipients.get(cliKey);
    return (
      previous !== undefined &&
      ctx.clock.now() - previous.requestedAt < ctx.options.duplicateWindowSeconds * 1000
    );
  };

  const record = (
    endpoint: SendEndpoint,
    fields: SendFields,
    kind: Classification,
    recipient: RecipientFields,
    deliverAt: number,
  ): SentRecipient => {
    const sent: SentRecipient = {
      msgKey: ctx.nextId('M'),
      cliKey: recipient.cliKey,
      ...(recipient.phone === undefined ? {} : { phone: recipient.phone }),
      channel: kind.channel,
      productCode: kind.productCode,
      fallbacks: (fields.fbInfoLst ?? []).flatMap((fallback) =>
        fallback.ch === 'SMS' || fallback.ch === 'MMS' ? [{ ch: fallback.ch }] : [],
      ),
      ...(recipient.userCustomFields === undefined
        ? {}
        : { userCustomFields: recipient.userCustomFields }),
      isBi: endpoint.isBi === true,
      ...(fields.campaignId === undefined ? {} : { campaignId: fields.campaignId }),
      requestedAt: ctx.clock.now(),
      deliverAt,
      status: 'REG',
    };
    ctx.state.recipients.set(sent.cliKey, sent);
    counts.recipientsAccepted += 1;
    ctx.hooks.onAccepted(sent);
    return sent;
  };

  /** Immediate send: one item per recipient; a repeated `cliKey` fails alone with `29024`. */
  const sendNow = (
    endpoint: SendEndpoint,
    fields: SendFields,
    kind: Classification,
    recipients: readonly RecipientFields[],
  ): SimResponse => {
    const items = recipients.map((recipient) => {
      const extra = endpoint.isBi
        ? { replyId: fields.replyId, chatbotId: fields.chatbotId }
        : { phone: recipient.phone };
      if (isDuplicate(recipient.cliKey)) {
        counts.duplicateRecipients += 1;
        return {
          cliKey: recipient.cliKey,
          ...extra,
          code: SEND_CODES.duplicateKey,
          message: `duplicate key: cliKey ${recipient.cliKey} was already accepted`,
        };
      }
      const sent = record(endpoint, fields, kind, recipient, ctx.clock.now());
      return {
        cliKey: sent.cliKey,
        msgKey: sent.msgKey,
        ...extra,
        code: '10000',
        message: 'success',
      };
    });
    return ok(items);
  };

  /**
   * Scheduled send: `{regDt, webReqId}` and no per-recipient list, so a repeated `cliKey` cannot
   * be reported per recipient; the whole call is refused with `29024` instead (our choice).
   */
  const sendLater = (
    endpoint: SendEndpoint,
    fields: SendFields,
    kind: Classification,
    recipients: readonly RecipientFields[],
    at: number,
  ): SimResponse => {
    const repeated = recipients.filter((recipient) => isDuplicate(recipient.cliKey));
    if (repeated.length > 0) {
      counts.duplicateRecipients += repeated.length;
      return reject(
        SEND_CODES.duplicateKey,
        `duplicate key: ${repeated.map((r) => r.cliKey).join(', ')} already accepted`,
      );
    }
    for (const recipient of recipients) record(endpoint, fields, kind, recipient, at);
    return ok({
      regDt: formatKst(ctx.clock.now(), 'YYYY-MM-DD HH:mm:ss'),
      webReqId: ctx.nextId('W'),
    });
  };

  const handle = async (endpoint: SendEndpoint, request: SimRequest): Promise<SimResponse> => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const response = takeBurstFault() ?? (await accept(endpoint, request));
    if (response.status === 200) counts.sends += 1;
    else counts.rejectedSends += 1;
    return response;
  };

  const accept = async (endpoint: SendEndpoint, request: SimRequest): Promise<SimResponse> => {
    const input = endpoint.multipart ? await readMultipart(request) : readJson(request);
    if ('status' in input) return input;
    const validated = validate(endpoint, input.body);
    if ('status' in validated) return validated;
    const fields = validated.fields;
    const attachments = input.files + (fields.fileIdLst?.length ?? 0);
    if (attachments > MAX_ATTACHMENTS) {
      return reject(
        SEND_CODES.tooManyAttachments,
        `parts: ${attachments} attachments; an MMS carries at most ${MAX_ATTACHMENTS}`,
      );
    }
    const at = scheduledAt(fields);
    if (typeof at === 'object') return at;
    const recipients = recipientsOf(fields);
    const overQuota = takeQuota(recipients.length);
    if (overQuota) return overQuota;
    const kind = endpoint.classify(fields, attachments);
    return at === undefined
      ? sendNow(endpoint, fields, kind, recipients)
      : sendLater(endpoint, fields, kind, recipients, at);
  };

  return {
    register(router: Router): void {
      for (const endpoint of ENDPOINTS) {
        router.add('POST', endpoint.path, (request) => handle(endpoint, request));
      }
    },
    snapshot: (): SendingSnapshot => ({ ...counts }),
  };
};

/** The two-way reply names its one recipient at the top level; every other send lists them. */
const recipientsOf = (fields: SendFields): readonly RecipientFields[] =>
  fields.recvInfoLst ??
  (fields.cliKey === undefined ? [] : [{ cliKey: fields.cliKey, phone: fields.phone }]);

interface SendInput {
  readonly body: unknown;
  /** Files attached as multipart parts. */
  readonly files: number;
}

const readJson = (request: SimRequest): SendInput | SimResponse => {
  try {
    return { body: request.json(), files: 0 };
  } catch {
    return reject(SEND_CODES.malformedBody, 'request body is not valid JSON');
  }
};

/**
 * `multipart/form-data` of `/xms/mms/file/v1`: part `reqMsg` (JSON, as a field or a file part)
 * and any number of `parts` files, counted here so a fourth file can be refused.
 */
const readMultipart = (request: SimRequest): Promise<SendInput | SimResponse> =>
  new Promise((resolve) => {
    const malformed = (why: string) =>
      resolve(reject(SEND_CODES.malformedBody, `multipart body: ${why}`));
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers });
    } catch (error) {
      malformed(error instanceof Error ? error.message : String(error));
      return;
    }
    let reqMsg: string | undefined;
    let files = 0;
    parser.on('field', (name, value) => {
      if (name === 'reqMsg') reqMsg = value;
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (name === 'reqMsg') reqMsg = Buffer.concat(chunks).toString('utf8');
        else if (name === 'parts') files += 1;
      });
    });
    parser.on('error', (error) =>
      malformed(error instanceof Error ? error.message : String(error)),
    );
    parser.on('close', () => {
      if (reqMsg === undefined) return malformed('part reqMsg is missing');
      try {
        resolve({ body: JSON.parse(reqMsg), files });
      } catch {
        malformed('part reqMsg is not valid JSON');
      }
    });
    parser.end(request.body);
  });

/** The validated fields, or the gateway's answer to the first broken rule. */
const validate = (endpoint: SendEndpoint, body: unknown): { fields: SendFields } | SimResponse => {
  const result = endpoint.schema.safeParse(body);
  if (result.success) return { fields: result.data };
  const issues = result.error.issues;
  const tooMany = issues.find(
    (issue) =>
      issue.code === 'too_big' && issue.path.length === 1 && issue.path[0] === 'recvInfoLst',
  );
  if (tooMany) {
    return reject(SEND_CODES.tooManyRecipients, `recvInfoLst: ${tooMany.message}`);
  }
  const [first] = issues;
  const path = first?.path.join('.') ?? '';
  const message = `${path || '(body)'}: ${first?.message ?? 'invalid request'}`;
  if (first?.path[0] !== 'fbInfoLst') return reject(SEND_CODES.invalidField, message);
  return reject(
    repeatsFallbackChannel(body, endpoint.mainFallbackChannel)
      ? SEND_CODES.fallbackChannelRepeated
      : SEND_CODES.badFallback,
    message,
  );
};

/**
 * True when a fallback's `ch` repeats the main channel or an earlier fallback (`21051`). Read
 * from the raw body, since the schema's issue for it is only known by its path.
 */
const repeatsFallbackChannel = (body: unknown, main: 'SMS' | 'MMS' | undefined): boolean => {
  if (body === null || typeof body !== 'object' || !('fbInfoLst' in body)) return false;
  const list = body.fbInfoLst;
  if (!Array.isArray(list)) return false;
  const seen = new Set<unknown>(main === undefined ? [] : [main]);
  for (const fallback of list) {
    const ch: unknown =
      fallback !== null && typeof fallback === 'object' && 'ch' in fallback
        ? fallback.ch
        : undefined;
    if (ch !== undefined && seen.has(ch)) return true;
    seen.add(ch);
  }
  return false;
};
