import busboy from 'busboy';
import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import { envelope, ok, type SentRecipient, type SimChannel, type SimContext } from './context.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import { DUPLICATE_CODES, type DuplicateCode, SEND_CODES, SendRuleError } from './send-checks.ts';
import {
  type EndpointRules,
  MMS_MULTIPART_RULES,
  MMS_RULES,
  PUSH_RULES,
  SMS_RULES,
  type ValidRecipient,
  type ValidSend,
  validateSend,
} from './send-rules.ts';
import { BRAND_FREE_RULES, BRAND_TEMPLATE_RULES, NOTICE_RULES } from './send-rules-messenger.ts';
import {
  RCS_INTEGRATED_RULES,
  RCS_REPLY_RULES,
  RCS_V1_RULES,
  RCS_V11_RULES,
} from './send-rules-rcs.ts';
import * as z from './zod.ts';

const MAX_ATTACHMENTS = 3;
const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;
/** Spec 01 §4.3: `resvReqDt` is `YYYY-MM-DD HH:mm`. */
const RESERVATION_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

/** What a send call is billed and reported as. */
interface Classification {
  readonly channel: SimChannel;
  readonly productCode: string;
}

interface SendEndpoint {
  readonly path: string;
  readonly rules: EndpointRules;
  readonly multipart?: boolean;
  readonly isBi?: boolean;
  /** `now` is the simulated time of the call (brand product codes change with the year). */
  readonly classify: (send: ValidSend, attachments: number, now: number) => Classification;
}

const fixed =
  (channel: SimChannel, productCode: string = channel) =>
  (): Classification => ({ channel, productCode });

// MMS without attachments is billed as LMS (field notes: products SMS, LMS, MMS).
const mms = (_send: ValidSend, attachments: number): Classification =>
  attachments > 0 ? fixed('MMS')() : fixed('LMS')();

const field = (send: ValidSend, key: string): string | undefined => {
  const value = send.body[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * RCS product: the agency's `productCode` when given; otherwise read from the standard message
 * bases (`SS…` short text, `SL…` long text, `SM…` media — an assumption, the spec is silent) and
 * `ITMPL` (template) for every other `messagebaseId`.
 */
const rcs = (send: ValidSend): Classification => {
  const productCode = field(send, 'productCode');
  if (productCode) return fixed('RCS', productCode)();
  const base = field(send, 'messagebaseId') ?? '';
  if (base.startsWith('SS')) return fixed('RCS', 'SMS')();
  if (base.startsWith('SL')) return fixed('RCS', 'LMS')();
  if (base.startsWith('SM')) return fixed('RCS', 'MMS')();
  return fixed('RCS', 'ITMPL')();
};

/** 2026-01-01 00:00 KST: brand messages report BRDF/BRDNF from then on (spec 01 §2). */
export const BRAND_CODES_FROM = Date.parse('2026-01-01T00:00:00+09:00');

/** Spec 01 §2 "Product codes": the channel-friend code of each `chatBubbleType` (§4.9). */
export const CHANNEL_FRIEND_CODES: Readonly<Record<string, string>> = {
  TEXT: 'KFRT1',
  IMAGE: 'KFRM2',
  WIDE: 'KFRM3',
  WIDE_ITEM_LIST: 'KFRM4',
  CAROUSEL_FEED: 'KFRM5',
  PREMIUM_VIDEO: 'KFRM6',
  COMMERCE: 'KFRM7',
  CAROUSEL_COMMERCE: 'KFRM8',
};

/**
 * Up to 2025 a brand message reports the channel-friend code of its bubble type; from 2026
 * BRDF or BRDNF. Targeting `I` reaches channel friends only; `M` and `N` may reach non-friends
 * (assumption: the spec does not say which targeting bills which).
 */
const brand = (send: ValidSend, _attachments: number, now: number): Classification => {
  if (now < BRAND_CODES_FROM) {
    return fixed('BRAND', CHANNEL_FRIEND_CODES[field(send, 'chatBubbleType') ?? ''] ?? 'KFRT1')();
  }
  return fixed('BRAND', field(send, 'targeting') === 'I' ? 'BRDF' : 'BRDNF')();
};

/** Every send path of spec 01 §4.3–4.10. */
const ENDPOINTS: readonly SendEndpoint[] = [
  { path: '/xms/sms/v1', rules: SMS_RULES, classify: fixed('SMS') },
  { path: '/msg/v1/sms', rules: SMS_RULES, classify: fixed('SMS') },
  { path: '/xms/mms/v1', rules: MMS_RULES, classify: mms },
  { path: '/msg/v1/mms', rules: MMS_RULES, classify: mms },
  { path: '/xms/mms/file/v1', rules: MMS_MULTIPART_RULES, multipart: true, classify: mms },
  { path: '/msg/v1/rcs', rules: RCS_V1_RULES, classify: rcs },
  { path: '/msg/v1.1/rcs', rules: RCS_V11_RULES, classify: rcs },
  { path: '/rcs/v1.1', rules: RCS_INTEGRATED_RULES, classify: rcs },
  {
    path: '/rcs/bi/v1.1',
    rules: RCS_REPLY_RULES,
    isBi: true,
    classify: (send) => fixed('RCS', field(send, 'productCode') ?? 'CHAT')(),
  },
  { path: '/msg/v1/push', rules: PUSH_RULES, classify: fixed('PUSH') },
  // The spec names no product code for notification messages; the field notes' billed products
  // are SMS, LMS, MMS, CHAT and ITMPL, and a notification is a template message: `ITMPL`.
  { path: '/msgr/notice/v1.2', rules: NOTICE_RULES, classify: fixed('MSGR', 'ITMPL') },
  { path: '/msgr/brand/tmplt/v1', rules: BRAND_TEMPLATE_RULES, classify: brand },
  { path: '/msgr/brand/custom/v1', rules: BRAND_FREE_RULES, classify: brand },
];

/** Body of `POST /_sim/files`: a file id "uploaded" outside the spec, valid for `expiresInMs`. */
const FileRegistrationSchema = z.strictObject({
  fileId: z.string().check(z.minLength(1), z.maxLength(100)),
  expiresInMs: z.int().check(z.minimum(0)),
});

export interface SendingSnapshot {
  /** Send calls answered `10000`. */
  readonly sends: number;
  readonly recipientsAccepted: number;
  readonly duplicateRecipients: number;
  /** Send calls answered with a top-level error (auth failures excluded). */
  readonly rejectedSends: number;
  /** Send calls refused `29002` because their recipients did not fit the TPS quota. */
  readonly quotaRefusals: number;
  /**
   * Recipients counted against the TPS quota in each of the latest 60 seconds (epoch second of
   * arrival → count): what a test reads to show no second went above the quota.
   */
  readonly quotaUsedBySecond: Readonly<Record<string, number>>;
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
  // Counted by the second a request arrived in; calls are checked in the order their checks
  // finish, which under load is not always the order they arrived in, so recent seconds are kept.
  const usedIn = new Map<number, number>();
  const KEPT_SECONDS = 60;

  const takeBurstFault = (): SimResponse | undefined => {
    if (ctx.faults.rateLimitBurst <= 0) return undefined;
    ctx.faults.rateLimitBurst -= 1;
    return reject(SEND_CODES.rateLimited, 'rate limit exceeded (simulated burst); retry later');
  };

  const takeQuota = (recipients: number, arrivedAt: number): SimResponse | undefined => {
    const second = Math.floor(arrivedAt / 1000);
    const used = usedIn.get(second) ?? 0;
    if (used + recipients > ctx.options.tpsQuota) {
      counts.quotaRefusals += 1;
      return reject(
        SEND_CODES.rateLimited,
        `rate limit exceeded: ${used} of ${ctx.options.tpsQuota} recipients this second, ${recipients} more asked`,
      );
    }
    usedIn.set(second, used + recipients);
    for (const old of usedIn.keys()) if (old < second - KEPT_SECONDS) usedIn.delete(old);
    return undefined;
  };

  /** Files registered through `POST /_sim/files`: id → simulated expiry instant. */
  const files = new Map<string, number>();

  /** The simulated instant a scheduled send goes out, or the reason it cannot be scheduled. */
  const scheduledAt = (send: ValidSend): number | SimResponse | undefined => {
    const { resvYn, resvReqDt } = send.body;
    if (resvYn !== 'Y') return undefined;
    const now = ctx.clock.now();
    const refuse = (why: string) => reject(SEND_CODES.badReservationTime, `resvReqDt: ${why}`);
    if (typeof resvReqDt !== 'string' || resvReqDt === '') {
      return refuse('is required with resvYn Y');
    }
    const iso = RESERVATION_TIME.test(resvReqDt) ? parseGatewayDateTime(resvReqDt) : undefined;
    const at = iso === undefined ? Number.NaN : Date.parse(iso);
    if (Number.isNaN(at)) return refuse(`${resvReqDt} is not YYYY-MM-DD HH:mm`);
    if (at <= now || at > now + MAX_SCHEDULE_AHEAD_MS) {
      return refuse(
        `${resvReqDt} must be after ${formatKst(now, 'YYYY-MM-DD HH:mm')} and at most 30 days ahead (KST)`,
      );
    }
    return at;
  };

  /**
   * `21029` for a registered file id past its expiry. An id never registered is accepted: the
   * spec has no upload endpoint, so ids come from outside and the simulator cannot know them all.
   */
  const expiredFile = (send: ValidSend): SimResponse | undefined => {
    const now = ctx.clock.now();
    const expired = send.fileIds.find(({ fileId }) => (files.get(fileId) ?? Infinity) <= now);
    return expired
      ? reject(SEND_CODES.expiredFile, `${expired.path}: file id ${expired.fileId} has expired`)
      : undefined;
  };

  const isDuplicate = (cliKey: string): boolean => {
    const previous = ctx.state.recipients.get(cliKey);
    return (
      previous !== undefined &&
      ctx.clock.now() - previous.requestedAt < ctx.options.duplicateWindowSeconds * 1000
    );
  };

  /** The duplicate family code of one answer: the configured one, or drawn (`mixed`). */
  const duplicateCode = (): DuplicateCode => {
    const configured = ctx.options.duplicateCode;
    if (configured !== 'mixed') return configured;
    return DUPLICATE_CODES[Math.floor(ctx.random() * DUPLICATE_CODES.length)] ?? '29024';
  };

  const DUPLICATE_TEXT: Readonly<Record<DuplicateCode, string>> = {
    '29005': 'duplicate send',
    '29023': 'duplicate acceptance',
    '29024': 'duplicate key',
  };

  const record = (
    endpoint: SendEndpoint,
    send: ValidSend,
    kind: Classification,
    recipient: ValidRecipient,
    deliverAt: number,
  ): SentRecipient => {
    const campaignId = field(send, 'campaignId');
    const sent: SentRecipient = {
      msgKey: ctx.nextId('M'),
      cliKey: recipient.cliKey,
      ...(recipient.phone === undefined ? {} : { phone: recipient.phone }),
      channel: kind.channel,
      productCode: kind.productCode,
      fallbacks: send.fallbacks.map((ch) => ({ ch })),
      ...(recipient.userCustomFields === undefined
        ? {}
        : { userCustomFields: recipient.userCustomFields }),
      isBi: endpoint.isBi === true,
      ...(campaignId === undefined ? {} : { campaignId }),
      requestedAt: ctx.clock.now(),
      deliverAt,
      status: 'REG',
    };
    ctx.state.recipients.set(sent.cliKey, sent);
    counts.recipientsAccepted += 1;
    ctx.hooks.onAccepted(sent);
    return sent;
  };

  /** Immediate send: one item per recipient; a repeated `cliKey` fails alone (duplicate family). */
  const sendNow = (endpoint: SendEndpoint, send: ValidSend, kind: Classification): SimResponse => {
    const items = send.recipients.map((recipient) => {
      const extra = endpoint.isBi
        ? { replyId: send.body.replyId, chatbotId: send.body.chatbotId }
        : { phone: recipient.phone };
      if (isDuplicate(recipient.cliKey)) {
        counts.duplicateRecipients += 1;
        const code = duplicateCode();
        return {
          cliKey: recipient.cliKey,
          ...extra,
          code,
          message: `${DUPLICATE_TEXT[code]}: cliKey ${recipient.cliKey} was already accepted`,
        };
      }
      const sent = record(endpoint, send, kind, recipient, ctx.clock.now());
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
   * be reported per recipient; the whole call is refused with a duplicate code instead (our choice),
   * as it is when one `cliKey` stands twice in the list (an immediate send accepts the first).
   */
  const sendLater = (
    endpoint: SendEndpoint,
    send: ValidSend,
    kind: Classification,
    at: number,
  ): SimResponse => {
    const seen = new Set<string>();
    const repeated = send.recipients.filter((recipient) => {
      const again = seen.has(recipient.cliKey) || isDuplicate(recipient.cliKey);
      seen.add(recipient.cliKey);
      return again;
    });
    if (repeated.length > 0) {
      counts.duplicateRecipients += repeated.length;
      const code = duplicateCode();
      return reject(
        code,
        `${DUPLICATE_TEXT[code]}: ${repeated.map((r) => r.cliKey).join(', ')} already accepted`,
      );
    }
    for (const recipient of send.recipients) record(endpoint, send, kind, recipient, at);
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
    const validated = validate(endpoint.rules, input.body);
    if ('status' in validated) return validated;
    const attachments = input.files + validated.attachedFileIds;
    if (endpoint.multipart && input.files === 0) {
      return reject(SEND_CODES.invalidField, 'parts: attach at least one file');
    }
    if (attachments > MAX_ATTACHMENTS) {
      return reject(
        SEND_CODES.tooManyAttachments,
        `parts: ${attachments} attachments; an MMS carries at most ${MAX_ATTACHMENTS}`,
      );
    }
    const refused = expiredFile(validated) ?? scheduledAt(validated);
    if (typeof refused === 'object') return refused;
    const overQuota = takeQuota(validated.recipients.length, request.arrivedAt);
    if (overQuota) return overQuota;
    const kind = endpoint.classify(validated, attachments, ctx.clock.now());
    return refused === undefined
      ? sendNow(endpoint, validated, kind)
      : sendLater(endpoint, validated, kind, refused);
  };

  return {
    register(router: Router): void {
      for (const endpoint of ENDPOINTS) {
        router.add('POST', endpoint.path, (request) => handle(endpoint, request));
      }
      // A control endpoint (no auth, never faulted, like the rest of `/_sim/`), registered here
      // because the file ids it registers are read by the send endpoints.
      router.add('POST', '/_sim/files', (request) => {
        const parsed = FileRegistrationSchema.safeParse(request.json() ?? {});
        if (!parsed.success) {
          return envelope('21001', z.prettifyError(parsed.error), undefined, 400);
        }
        const expiresAt = ctx.clock.now() + parsed.data.expiresInMs;
        files.set(parsed.data.fileId, expiresAt);
        return ok({ fileId: parsed.data.fileId, expiresAt: new Date(expiresAt).toISOString() });
      });
    },
    snapshot: (): SendingSnapshot => ({
      ...counts,
      quotaUsedBySecond: Object.fromEntries(usedIn),
    }),
  };
};

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

/** The validated send, or the gateway's answer to the first broken rule. */
const validate = (rules: EndpointRules, body: unknown): ValidSend | SimResponse => {
  try {
    return validateSend(rules, body);
  } catch (error) {
    if (error instanceof SendRuleError) return reject(error.code, error.message);
    throw error;
  }
};
