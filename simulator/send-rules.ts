/**
 * The simulator's own reading of spec 01 §2 and §4.3–4.10 (and the field notes' Sending rules):
 * what a send request must look like. Written from the spec, never from the bridge's schemas, so
 * a misreading on either side shows up as a disagreement in the tests.
 */
import {
  anyObject,
  at,
  type Check,
  fail,
  flag,
  isObject,
  type Json,
  list,
  object,
  optional,
  readObject,
  required,
  SEND_CODES,
  SendRuleError,
  type Shape,
  type TextRule,
  text,
  textProblem,
  withCode,
} from './send-checks.ts';

/** Spec 01 §8 and the field notes. */
export const LIMITS = {
  recipients: 10,
  fileIds: 3,
  smsMsg: { maxBytes: 90, cp949Only: true },
  mmsTitle: { maxBytes: 40 },
  mmsMsg: { maxBytes: 2000 },
  pushText: { max: 2000 },
  pushExtBytes: 1000,
  noticeMsg: { max: 1000 },
  rcsButtons: 4,
} as const satisfies Record<string, TextRule | number>;

/** Field notes: `cliKey` and `phone` rules (spec 01 §2 RecvInfo). */
export const CLI_KEY = /^[a-zA-Z0-9\-_.@]{1,30}$/;
export const PHONE = /^[0-9-]{1,20}$/;

/** One recipient of a validated send. */
export interface ValidRecipient {
  readonly cliKey: string;
  readonly phone?: string;
  readonly userCustomFields?: Json;
}

/** What the simulator reads from a validated send request. */
export interface ValidSend {
  readonly body: Json;
  readonly recipients: readonly ValidRecipient[];
  readonly fallbacks: ReadonlyArray<'SMS' | 'MMS'>;
  /** Every file id the request refers to, for the expiry check (`21029`). */
  readonly fileIds: ReadonlyArray<{ readonly path: string; readonly fileId: string }>;
  /** File ids attached to the main message (`fileIdLst`), counted with multipart files. */
  readonly attachedFileIds: number;
}

/** A text of the request in which variables are filled from each recipient's `mergeData`. */
export interface TextSlot {
  readonly path: string;
  readonly text: string;
  /** `#{name}` for text, notification and push (and every SMS/MMS fallback); `{{name}}` for RCS. */
  readonly syntax: 'hash' | 'braces';
  /** The limit the filled text must keep too (it is what reaches the handset). */
  readonly rule?: TextRule;
  /** Code for a filled text that breaks `rule` (fallback texts answer `21014`). */
  readonly code?: string;
}

export interface EndpointRules {
  readonly shape: Shape;
  /** The main channel when it is a fallback channel too (an SMS send cannot fall back to SMS). */
  readonly main?: 'SMS' | 'MMS';
  /** `reply`: one recipient at the top level (`cliKey`, `phone`), no `mergeData`, no fallback. */
  readonly recipients: 'list' | 'reply';
  /** Texts with variables, read after the shape holds. */
  readonly slots?: (body: Json) => readonly TextSlot[];
  /** Rules across fields (footer with header `1`, unsubscribe pair, bubble types…). */
  readonly cross?: (body: Json) => void;
  /** File ids other than `fileIdLst` and fallbacks' (push `fileId`, RCS `maapfile://` media). */
  readonly moreFileIds?: (body: Json) => ReadonlyArray<{ path: string; fileId: string }>;
}

// --- Common pieces ---------------------------------------------------------------------------

export const mergeData: Check = (value, path) => {
  if (!isObject(value)) return fail(path, 'must be an object');
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null && typeof entry !== 'string' && typeof entry !== 'number') {
      fail(at(path, key), 'a variable value must be a string or a number');
    }
  }
};

export const AGENCY: Shape = {
  kisaOrigCode: optional(text()),
  rcsAgencyId: optional(text()),
  rcsAgencyKey: optional(text()),
};

export const RECIPIENT: Shape = {
  cliKey: required(text({ pattern: CLI_KEY })),
  phone: required(text({ pattern: PHONE })),
  mergeData: optional(mergeData),
  userCustomFields: optional(anyObject),
};

/** Fields of every send but the two-way reply (spec 01 §4.3 and "as SMS"/"as above"). */
export const COMMON: Shape = {
  resvYn: optional(flag),
  // Its format and horizon answer `21030`, checked with the simulated clock by the caller.
  resvReqDt: optional(text()),
  agency: optional(object(AGENCY)),
  recvInfoLst: required(list(object(RECIPIENT), { min: 1 })),
  fbInfoLst: optional(), // read by readFallbacks, which answers 21014/21051/21024
};

export const LIMITED: Shape = {
  campaignId: optional(text({ max: 20 })),
  deptCode: optional(text({ max: 20 })),
};

/** Spec 01 §2 FbInfo. */
const FALLBACK: Shape = {
  ch: required(text({ oneOf: ['SMS', 'MMS'] })),
  title: optional(text(LIMITS.mmsTitle)),
  msg: required(text()),
  fileId: optional(text({ max: 100 })),
  fileIdLst: optional(list(text(), { max: LIMITS.fileIds })),
};

const hasFallbacks = (body: unknown): body is Json & { fbInfoLst: unknown[] } =>
  isObject(body) && Array.isArray(body.fbInfoLst) && body.fbInfoLst.length > 0;

/** `fbInfoLst`: the channels in order; throws `21014`, `21051` or `21024`. */
const readFallbacks = (body: Json, rules: EndpointRules): Array<'SMS' | 'MMS'> => {
  const raw = body.fbInfoLst;
  if (raw === undefined || raw === null) return [];
  if (rules.recipients === 'reply') {
    // Field notes: two-way RCS replies have no fallback.
    return fail('fbInfoLst', 'a two-way reply has no fallback', SEND_CODES.badFallback);
  }
  if (!Array.isArray(raw)) return fail('fbInfoLst', 'must be an array', SEND_CODES.badFallback);
  const seen = new Set<string>(rules.main ? [rules.main] : []);
  return raw.map((entry, index) => {
    const path = at('fbInfoLst', index);
    const ch = isObject(entry) ? entry.ch : undefined;
    if (typeof ch === 'string' && seen.has(ch)) {
      fail(
        at(path, 'ch'),
        `${ch} is the main channel or an earlier fallback`,
        SEND_CODES.fallbackChannelRepeated,
      );
    }
    if (typeof ch === 'string') seen.add(ch);
    withCode(SEND_CODES.badFallback, () => {
      const item = readObject(entry, path, FALLBACK);
      const msgRule = item.ch === 'SMS' ? LIMITS.smsMsg : LIMITS.mmsMsg;
      text(msgRule)(item.msg, at(path, 'msg'));
      if (item.ch === 'MMS' && (item.title === undefined || item.title === '')) {
        fail(at(path, 'title'), 'an MMS fallback needs a title');
      }
      if (
        item.ch === 'SMS' &&
        (item.title !== undefined || item.fileId !== undefined || item.fileIdLst !== undefined)
      ) {
        fail(path, 'an SMS fallback carries text only (no title, no files)');
      }
      if (item.fileId !== undefined && item.fileIdLst !== undefined) {
        fail(path, 'use either fileId or fileIdLst');
      }
    });
    return ch === 'SMS' ? 'SMS' : 'MMS';
  });
};

const fallbackSlots = (body: Json): TextSlot[] =>
  (Array.isArray(body.fbInfoLst) ? body.fbInfoLst : []).flatMap((entry, index) => {
    if (!isObject(entry)) return [];
    const path = at('fbInfoLst', index);
    const sms = entry.ch === 'SMS';
    const slots: TextSlot[] = [];
    if (typeof entry.msg === 'string') {
      slots.push({
        path: at(path, 'msg'),
        text: entry.msg,
        syntax: 'hash',
        rule: sms ? LIMITS.smsMsg : LIMITS.mmsMsg,
        code: SEND_CODES.badFallback,
      });
    }
    if (typeof entry.title === 'string') {
      slots.push({
        path: at(path, 'title'),
        text: entry.title,
        syntax: 'hash',
        rule: LIMITS.mmsTitle,
        code: SEND_CODES.badFallback,
      });
    }
    return slots;
  });

const fallbackFileIds = (body: Json) =>
  (Array.isArray(body.fbInfoLst) ? body.fbInfoLst : []).flatMap((entry, index) => {
    if (!isObject(entry)) return [];
    const path = at('fbInfoLst', index);
    return [
      ...(typeof entry.fileId === 'string'
        ? [{ path: at(path, 'fileId'), fileId: entry.fileId }]
        : []),
      ...idsIn(entry.fileIdLst, at(path, 'fileIdLst')),
    ];
  });

const idsIn = (value: unknown, path: string) =>
  Array.isArray(value)
    ? value.flatMap((fileId, index) =>
        typeof fileId === 'string' ? [{ path: at(path, index), fileId }] : [],
      )
    : [];

// --- Variables ---------------------------------------------------------------------------------

const VARIABLE = { hash: /#\{([^}]+)\}/g, braces: /\{\{([^}]+)\}\}/g } as const;
const written = { hash: (name: string) => `#{${name}}`, braces: (name: string) => `{{${name}}}` };

/**
 * Spec 01 §2: variables are filled from each recipient's `mergeData`. A variable a recipient has
 * no value for (absent or null) refuses the request, naming that recipient; the filled text must
 * keep the field's limit too, since the filled text is what is delivered.
 */
const checkVariables = (
  slots: readonly TextSlot[],
  recipients: readonly unknown[],
  reply: boolean,
) => {
  for (const slot of slots) {
    const names = [...slot.text.matchAll(VARIABLE[slot.syntax])].map((match) => match[1] ?? '');
    if (names.length === 0) continue;
    if (reply) {
      fail(
        slot.path,
        `variable ${written[slot.syntax](names[0] ?? '')} has nothing to fill it: a two-way reply has no mergeData`,
      );
    }
    recipients.forEach((recipient, index) => {
      const values =
        isObject(recipient) && isObject(recipient.mergeData) ? recipient.mergeData : {};
      const path = at(at('recvInfoLst', index), 'mergeData');
      for (const name of names) {
        const value = values[name];
        if (typeof value !== 'string' && typeof value !== 'number') {
          fail(
            at(path, name),
            `no value for variable ${written[slot.syntax](name)} used in ${slot.path}`,
          );
        }
      }
      if (!slot.rule) return;
      const filled = slot.text.replace(VARIABLE[slot.syntax], (_all, name: string) =>
        String(values[name]),
      );
      const problem = textProblem(filled, slot.rule);
      if (problem) fail(slot.path, `filled in for recvInfoLst[${index}] ${problem}`, slot.code);
    });
  }
};

// --- Validation --------------------------------------------------------------------------------

/** Validates a send body against `rules`: the first broken rule throws {@link SendRuleError}. */
export const validateSend = (rules: EndpointRules, body: unknown): ValidSend => {
  if (!isObject(body)) return fail('', 'the request body must be a JSON object');
  // Checked before any other field rule so these answer their own codes whatever else is wrong.
  if (Array.isArray(body.recvInfoLst) && body.recvInfoLst.length > LIMITS.recipients) {
    fail(
      'recvInfoLst',
      `${body.recvInfoLst.length} recipients; at most ${LIMITS.recipients}`,
      SEND_CODES.tooManyRecipients,
    );
  }
  if (
    rules.recipients === 'list' &&
    hasFallbacks(body) &&
    (body.callback === undefined || body.callback === null || body.callback === '')
  ) {
    fail(
      'callback',
      'a fallback is an SMS/LMS/MMS and needs the sender number callback',
      SEND_CODES.fallbackNeedsCallback,
    );
  }
  const fallbacks = readFallbacks(body, rules);
  readObject(body, '', rules.shape);
  rules.cross?.(body);
  const recipients: readonly unknown[] =
    rules.recipients === 'list' ? (body.recvInfoLst as unknown[]) : [body];
  checkVariables(
    [...(rules.slots?.(body) ?? []), ...fallbackSlots(body)],
    recipients,
    rules.recipients === 'reply',
  );
  return {
    body,
    recipients: recipients.map(toRecipient),
    fallbacks,
    fileIds: [
      ...idsIn(body.fileIdLst, 'fileIdLst'),
      ...fallbackFileIds(body),
      ...(rules.moreFileIds?.(body) ?? []),
    ],
    attachedFileIds: Array.isArray(body.fileIdLst) ? body.fileIdLst.length : 0,
  };
};

const toRecipient = (value: unknown): ValidRecipient => {
  if (!isObject(value) || typeof value.cliKey !== 'string') {
    throw new SendRuleError(SEND_CODES.invalidField, 'recvInfoLst', 'recipient without cliKey');
  }
  return {
    cliKey: value.cliKey,
    ...(typeof value.phone === 'string' ? { phone: value.phone } : {}),
    ...(isObject(value.userCustomFields) ? { userCustomFields: value.userCustomFields } : {}),
  };
};

// --- Text messages (§4.3, §4.4) ---------------------------------------------------------------

const TEXT_COMMON: Shape = {
  ...COMMON,
  ...LIMITED,
  clickUrlYn: optional(text({ oneOf: ['Y', 'N'] })),
  callback: required(text({ max: 20 })),
};

export const SMS_RULES: EndpointRules = {
  shape: { ...TEXT_COMMON, msg: required(text(LIMITS.smsMsg)) },
  main: 'SMS',
  recipients: 'list',
  slots: (body) => [{ path: 'msg', text: String(body.msg), syntax: 'hash', rule: LIMITS.smsMsg }],
};

const MMS_SHAPE: Shape = {
  ...TEXT_COMMON,
  title: optional(text(LIMITS.mmsTitle)),
  msg: required(text(LIMITS.mmsMsg)),
};

const mmsSlots = (body: Json): TextSlot[] => [
  { path: 'msg', text: String(body.msg), syntax: 'hash', rule: LIMITS.mmsMsg },
  ...(typeof body.title === 'string'
    ? [{ path: 'title', text: body.title, syntax: 'hash' as const, rule: LIMITS.mmsTitle }]
    : []),
];

export const MMS_RULES: EndpointRules = {
  // More than 3 file ids answers 21031 with the multipart count, so the list is not capped here.
  shape: { ...MMS_SHAPE, fileIdLst: optional(list(text({ max: 100 }))) },
  main: 'MMS',
  recipients: 'list',
  slots: mmsSlots,
};

/** `reqMsg` of `/xms/mms/file/v1`: "the JSON body above, without file ids". */
export const MMS_MULTIPART_RULES: EndpointRules = {
  shape: MMS_SHAPE,
  main: 'MMS',
  recipients: 'list',
  slots: mmsSlots,
};

// --- Push (§4.7) --------------------------------------------------------------------------------

export const PUSH_RULES: EndpointRules = {
  shape: {
    ...COMMON,
    ...LIMITED,
    callback: required(text({ max: 20 })),
    msg: required(
      object({ title: optional(text(LIMITS.pushText)), body: required(text(LIMITS.pushText)) }),
    ),
    appId: required(text()),
    ext: optional((value, path) => {
      if (!isObject(value)) return fail(path, 'must be a map of strings');
      for (const [key, entry] of Object.entries(value)) {
        if (typeof entry !== 'string') fail(at(path, key), 'must be a string');
      }
      const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
      if (bytes > LIMITS.pushExtBytes)
        fail(path, `is ${bytes} bytes as JSON; at most ${LIMITS.pushExtBytes}`);
    }),
    fileId: optional(text({ max: 100 })),
    recvInfoLst: required(
      list(
        object({
          cliKey: required(text({ pattern: CLI_KEY })),
          cuid: required(text()),
          phone: optional(text({ pattern: PHONE })),
          mergeData: optional(mergeData),
          userCustomFields: optional(anyObject),
        }),
        { min: 1 },
      ),
    ),
    clickUrlYn: required(flag),
  },
  recipients: 'list',
  cross: (body) => {
    if (!hasFallbacks(body)) return;
    // The phone of a push recipient is its fallback number: a fallback without it has nowhere to go.
    (body.recvInfoLst as Json[]).forEach((recipient, index) => {
      if (recipient.phone === undefined || recipient.phone === null || recipient.phone === '') {
        fail(
          at(at('recvInfoLst', index), 'phone'),
          'the fallback number is required with fbInfoLst',
          SEND_CODES.badFallback,
        );
      }
    });
  },
  slots: (body) => {
    const msg = isObject(body.msg) ? body.msg : {};
    return (['title', 'body'] as const).flatMap((key) =>
      typeof msg[key] === 'string'
        ? [{ path: `msg.${key}`, text: msg[key], syntax: 'hash' as const, rule: LIMITS.pushText }]
        : [],
    );
  },
  moreFileIds: (body) =>
    typeof body.fileId === 'string' ? [{ path: 'fileId', fileId: body.fileId }] : [],
};
