import { parseGatewayDateTime } from '../../protocol/kst.ts';
import {
  fieldsOf,
  GatewayCodeSchema,
  GatewayIdSchema,
  NullableStringSchema,
  nullableStrings,
  UserCustomFieldsSchema,
} from './lenient.ts';
import * as z from './zod.ts';

/*
 * Building blocks shared by every gateway schema (spec 01 §2).
 *
 * Two families live side by side:
 * - REQUEST pieces are strict: unknown keys are errors and every rule the spec states is checked,
 *   so a typo or an over-long text surfaces here instead of as a `21xxx` from the gateway.
 * - RESPONSE pieces are lenient (gateway field notes): unknown fields are kept, counts may be
 *   numbers or numeric strings, `null` lists are empty lists, date-times stay raw strings.
 */

// ---------------------------------------------------------------------------------------------
// Request primitives
// ---------------------------------------------------------------------------------------------

/** `Y`/`N` flags (`clickUrlYn`, `resvYn`, `pushAlarm`, …). */
export const YesNoSchema = z.enum(['Y', 'N']);
export type YesNo = z.infer<typeof YesNoSchema>;

export const CLI_KEY_PATTERN = /^[a-zA-Z0-9\-_.@]{1,30}$/;
export const PHONE_PATTERN = /^[0-9-]{1,20}$/;

/** Optional request texts that may not be empty when given. */
export const optionalTexts = fieldsOf(() => z.optional(z.string().check(z.minLength(1))));

/**
 * Client key. Spec 01 §2 states the pattern for push only; the field notes report it for every
 * channel, so it is enforced everywhere (it is also our idempotency key: see field notes,
 * duplicate-key family).
 */
export const CliKeySchema = z
  .string()
  .check(z.regex(CLI_KEY_PATTERN, 'cliKey must be 1-30 of letters, digits, "-", "_", "." or "@"'));

/** Recipient number: digits and hyphens, at most 20 (field notes, "Sending"). */
export const PhoneSchema = z
  .string()
  .check(
    z.regex(
      PHONE_PATTERN,
      'phone must be 1-20 digits or "-" (no "+": international numbers drop it)',
    ),
  );

/** Registered sender number (max 20; RCS uses its own, longer limit). */
export const CallbackSchema = z.string().check(z.minLength(1), z.maxLength(20));

/** `campaignId` and `deptCode`: max 20 wherever the spec gives a limit. */
export const ShortCodeSchema = z.string().check(z.minLength(1), z.maxLength(20));

/** Number of characters as a reader counts them: code points, so an emoji is one, not two. */
export const charCount = (text: string): number => [...text].length;

/** Line breaks in `text`; CRLF counts once. */
export const lineBreakCount = (text: string): number => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/**
 * Free text of at most `max` characters (code points). The spec's "max N" on a String means
 * characters unless it says bytes.
 */
export const textSchema = (max: number, options: { min?: number; maxLineBreaks?: number } = {}) =>
  z.string().check(
    z.minLength(options.min ?? 1),
    z.superRefine((value, ctx) => {
      const length = charCount(value);
      if (length > max) {
        ctx.addIssue({ code: 'custom', message: `is ${length} characters; max ${max}` });
      }
      const breaks = lineBreakCount(value);
      if (options.maxLineBreaks !== undefined && breaks > options.maxLineBreaks) {
        ctx.addIssue({
          code: 'custom',
          message: `has ${breaks} line breaks; max ${options.maxLineBreaks}`,
        });
      }
    }),
  );

const localDateTimeSchema = (pattern: RegExp, format: string) =>
  z.string().check(
    z.superRefine((value, ctx) => {
      if (!pattern.test(value)) {
        ctx.addIssue({ code: 'custom', message: `expected ${format}` });
      } else if (parseGatewayDateTime(value) === undefined) {
        ctx.addIssue({ code: 'custom', message: `${value} is not a real ${format} date-time` });
      }
    }),
  );

/** `YYYY-MM-DD`, a real calendar date (KST). */
export const LocalDateSchema = localDateTimeSchema(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');
/** `YYYY-MM-DD HH:mm:ss`, KST. */
export const LocalDateTimeSchema = localDateTimeSchema(
  /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
  'YYYY-MM-DD HH:mm:ss',
);
/** `YYYYMMDDHHmmss`, KST (the opt-out period query writes it `YYYYMMDDHHMMSS`). */
export const CompactDateTimeSchema = localDateTimeSchema(/^\d{14}$/, 'YYYYMMDDHHmmss');
/**
 * Scheduled send time, `YYYY-MM-DD HH:mm` KST, 24-hour clock (spec 01 §4.3). Push writes it
 * `yyyy-MM-dd hh:mm` (§4.7); read as the same 24-hour field, since every other channel and the
 * field notes write `HH`, and a 12-hour time without AM/PM would be ambiguous
 * (docs/gateway-client.md). The 30-day horizon needs a clock and is checked by the caller.
 */
export const ResvReqDtSchema = localDateTimeSchema(
  /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/,
  'YYYY-MM-DD HH:mm',
);

/** Scheduling fields shared by every send that can be scheduled. */
export const resvFieldsShape = {
  resvYn: z.optional(YesNoSchema),
  resvReqDt: z.optional(ResvReqDtSchema),
};

/**
 * `resvReqDt` is required when `resvYn` is `Y`, and refused otherwise: a time without
 * `resvYn=Y` would be sent at once, which is never what the caller meant.
 */
export const checkReservation = (
  value: { resvYn?: YesNo | undefined; resvReqDt?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void => {
  if (value.resvYn === 'Y' && value.resvReqDt === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['resvReqDt'],
      message: 'resvReqDt (YYYY-MM-DD HH:mm) is required when resvYn is Y',
    });
  }
  if (value.resvYn !== 'Y' && value.resvReqDt !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['resvReqDt'],
      message: 'resvReqDt is only allowed with resvYn Y; without it the message is sent at once',
    });
  }
};

/** The scheduling pair on its own, with {@link checkReservation}. */
export const ResvFieldsSchema = z
  .strictObject(resvFieldsShape)
  .check(z.superRefine(checkReservation));
export type ResvFields = z.infer<typeof ResvFieldsSchema>;

// ---------------------------------------------------------------------------------------------
// Request objects (spec 01 §2)
// ---------------------------------------------------------------------------------------------

/** Reseller identification; ordinary business customers omit it (spec 01 §2, Agency object). */
export const AgencySchema = z.strictObject({
  kisaOrigCode: z.optional(z.string().check(z.minLength(1))),
  rcsAgencyId: z.optional(z.string().check(z.minLength(1))),
  rcsAgencyKey: z.optional(z.string().check(z.minLength(1))),
});
export type Agency = z.infer<typeof AgencySchema>;

/**
 * The fields an SMS, MMS or messenger notification body opens with: click tracking, scheduling,
 * the reseller, the sender number and the campaign and department codes.
 */
export const senderFieldsShape = {
  clickUrlYn: z.optional(YesNoSchema),
  ...resvFieldsShape,
  agency: z.optional(AgencySchema),
  callback: CallbackSchema,
  campaignId: z.optional(ShortCodeSchema),
  deptCode: z.optional(ShortCodeSchema),
};

/** Variable values for `#{name}` / `{{name}}` in the message text. */
export const MergeDataSchema = z.record(z.string(), z.string());
export type MergeData = z.infer<typeof MergeDataSchema>;

/** One recipient of an SMS, MMS, RCS, messenger or brand send (push has its own). */
export const RecvInfoSchema = z.strictObject({
  cliKey: CliKeySchema,
  phone: PhoneSchema,
  mergeData: z.optional(MergeDataSchema),
  userCustomFields: z.optional(UserCustomFieldsSchema),
});
export type RecvInfo = z.infer<typeof RecvInfoSchema>;

export const MAX_RECIPIENTS = 10;

/**
 * `recvInfoLst`: 1 to 10 recipients (spec 01 §8) whose `cliKey`s are unique within the request,
 * since the gateway answers a repeated key as a duplicate send.
 */
export const recipientsSchema = <T extends z.ZodMiniType<{ cliKey: string }>>(item: T) =>
  z.array(item).check(
    z.minLength(1, 'at least one recipient is required'),
    z.maxLength(MAX_RECIPIENTS, `at most ${MAX_RECIPIENTS} recipients per request (spec 01 §8)`),
    z.superRefine((recipients, ctx) => {
      const firstIndex = new Map<string, number>();
      recipients.forEach((recipient, index) => {
        const first = firstIndex.get(recipient.cliKey);
        if (first === undefined) {
          firstIndex.set(recipient.cliKey, index);
          return;
        }
        ctx.addIssue({
          code: 'custom',
          path: [index, 'cliKey'],
          message: `cliKey "${recipient.cliKey}" repeats recipient ${first}'s; cliKeys must be unique`,
        });
      });
    }),
  );

export const FALLBACK_CHANNELS = ['SMS', 'MMS'] as const;
export type FallbackChannel = (typeof FALLBACK_CHANNELS)[number];

export const SMS_MAX_BYTES = 90;
export const MMS_MAX_BYTES = 2000;
export const MMS_TITLE_MAX_BYTES = 40;
export const MAX_MMS_FILES = 3;

// ---------------------------------------------------------------------------------------------
// RCS buttons (spec 01 §2, "RCS button objects")
// ---------------------------------------------------------------------------------------------

export const RCS_POSTBACK_KINDS = [
  'set_by_chatbot_open_url',
  'set_by_chatbot_copy_to_clipboard',
  'set_by_chatbot_dial_phone_number',
  'set_by_chatbot_create_calendar_event',
  'set_by_chatbot_request_location_push',
  'set_by_chatbot_show_location',
  'set_by_chatbot_search_locations',
] as const;
export type RcsPostbackKind = (typeof RCS_POSTBACK_KINDS)[number];

/** The spec does not type latitude/longitude; both a JSON number and a string are accepted. */
const CoordinateSchema = z.union([z.number(), z.string().check(z.minLength(1))]);

/** Calendar times are ISO 8601 in UTC (`2025-01-31T09:00:00Z`). */
const UtcInstantSchema = z.iso.datetime({ error: 'expected an ISO 8601 UTC date-time (…Z)' });

const RcsShowLocationSchema = z.strictObject({
  fallbackUrl: z.string().check(z.minLength(1)),
  location: z.strictObject({
    latitude: z.optional(CoordinateSchema),
    longitude: z.optional(CoordinateSchema),
    label: z.optional(z.string().check(z.minLength(1))),
    query: z.optional(z.string().check(z.minLength(1))),
  }),
});

type ActionObjectKey =
  | 'urlAction'
  | 'clipboardAction'
  | 'dialerAction'
  | 'calendarAction'
  | 'mapAction.requestLocationPush'
  | 'mapAction.showLocation';

/** Which action object each postback kind needs; the others must be absent. */
const ACTION_OBJECT_FOR_KIND: Record<RcsPostbackKind, ActionObjectKey> = {
  set_by_chatbot_open_url: 'urlAction',
  set_by_chatbot_copy_to_clipboard: 'clipboardAction',
  set_by_chatbot_dial_phone_number: 'dialerAction',
  set_by_chatbot_create_calendar_event: 'calendarAction',
  set_by_chatbot_request_location_push: 'mapAction.requestLocationPush',
  set_by_chatbot_show_location: 'mapAction.showLocation',
  set_by_chatbot_search_locations: 'mapAction.showLocation',
};

export const RcsActionSchema = z
  .strictObject({
    displayText: z.string().check(z.minLength(1)),
    postback: z.strictObject({ data: z.enum(RCS_POSTBACK_KINDS) }),
    urlAction: z.optional(
      z.strictObject({ openUrl: z.strictObject({ url: z.string().check(z.minLength(1)) }) }),
    ),
    clipboardAction: z.optional(
      z.strictObject({
        copyToClipboard: z.strictObject({ text: z.string().check(z.minLength(1)) }),
      }),
    ),
    dialerAction: z.optional(
      z.strictObject({
        dialPhoneNumber: z.strictObject({ phoneNumber: z.string().check(z.minLength(1)) }),
      }),
    ),
    calendarAction: z.optional(
      z.strictObject({
        createCalendarEvent: z.strictObject({
          title: z.string().check(z.minLength(1)),
          description: z.string().check(z.minLength(1)),
          startTime: UtcInstantSchema,
          endTime: UtcInstantSchema,
        }),
      }),
    ),
    mapAction: z.optional(
      z.strictObject({
        requestLocationPush: z.optional(z.strictObject({})),
        showLocation: z.optional(RcsShowLocationSchema),
      }),
    ),
  })
  .check(
    z.superRefine((action, ctx) => {
      const kind = action.postback.data;
      const present: Record<ActionObjectKey, boolean> = {
        urlAction: action.urlAction !== undefined,
        clipboardAction: action.clipboardAction !== undefined,
        dialerAction: action.dialerAction !== undefined,
        calendarAction: action.calendarAction !== undefined,
        'mapAction.requestLocationPush': action.mapAction?.requestLocationPush !== undefined,
        'mapAction.showLocation': action.mapAction?.showLocation !== undefined,
      };
      const needed = ACTION_OBJECT_FOR_KIND[kind];
      for (const [key, isPresent] of Object.entries(present)) {
        const path = key.split('.');
        if (key === needed && !isPresent) {
          ctx.addIssue({ code: 'custom', path, message: `${key} is required for ${kind}` });
        } else if (key !== needed && isPresent) {
          ctx.addIssue({ code: 'custom', path, message: `${key} does not belong to ${kind}` });
        }
      }
      const location = action.mapAction?.showLocation?.location;
      if (location === undefined) return;
      const locationPath = ['mapAction', 'showLocation', 'location'];
      if (kind === 'set_by_chatbot_show_location') {
        for (const field of ['latitude', 'longitude', 'label'] as const) {
          if (location[field] === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [...locationPath, field],
              message: `${field} is required for a coordinate-based location`,
            });
          }
        }
      }
      if (kind === 'set_by_chatbot_search_locations' && location.query === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [...locationPath, 'query'],
          message: 'query is required for a search-based location',
        });
      }
    }),
  );
export type RcsAction = z.infer<typeof RcsActionSchema>;

export const RcsSuggestionSchema = z.strictObject({ action: RcsActionSchema });
export type RcsSuggestion = z.infer<typeof RcsSuggestionSchema>;

/** One element of RCS `buttons` (and of two-way `chipList`): `{ suggestions: [...] }`. */
export const RcsButtonSchema = z.strictObject({
  suggestions: z
    .array(RcsSuggestionSchema)
    .check(z.minLength(1, 'a button needs at least one suggestion')),
});
export type RcsButton = z.infer<typeof RcsButtonSchema>;

export const MAX_RCS_BUTTONS = 4;

/**
 * One recipient's result of an immediate send. The top-level `"10000"` only means the request
 * was taken; each item's `code` is that recipient's result, and a refused recipient may have no
 * `msgKey` (field notes, "Envelope and result codes").
 */
export const SendResultItemSchema = z.looseObject({
  cliKey: z.string(),
  ...nullableStrings('msgKey', 'phone'),
  code: GatewayCodeSchema,
  message: NullableStringSchema,
});
export type SendResultItem = z.infer<typeof SendResultItemSchema>;

/** A scheduled send (`resvYn=Y`) answers this object instead of a list, without `msgKey`s. */
export const ScheduledSendDataSchema = z.looseObject({
  regDt: z.string(),
  webReqId: GatewayIdSchema,
});
export type ScheduledSendData = z.infer<typeof ScheduledSendDataSchema>;
