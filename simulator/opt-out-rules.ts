import { parseGatewayDateTime } from '../protocol/kst.ts';
import * as z from './zod.ts';

/*
 * What the simulated gateway accepts on the opt-out (080) list, written from spec 01 §2
 * (Opt-out entry), §3 and §4.15 alone, never from the bridge's schemas. Choices where the spec is
 * silent are named here and in the simulator README.
 */

/** Spec 01 §4.15: phone, callback and the 080 number are at most 20 characters. */
const NUMBER_MAX = 20;
/** Spec 01 §8: the period query's page size. */
export const PERIOD_PAGE_SIZE_MAX = 300;
export const PERIOD_PAGE_SIZE_DEFAULT = 10;

/**
 * The spec gives phone only "String, max 20". The simulator also wants the field notes' number
 * shape (digits and `-`), so a formatted or international `+82…` number is refused.
 */
const PhoneSchema = z
  .string()
  .check(
    z.maxLength(NUMBER_MAX, `at most ${NUMBER_MAX} characters`),
    z.regex(/^[0-9-]+$/, 'must be digits or "-"'),
  );

/** callback: a sender number as above, or `*` for every sender (spec 01 §4.15). */
const CallbackSchema = z
  .string()
  .check(
    z.maxLength(NUMBER_MAX, `at most ${NUMBER_MAX} characters`),
    z.regex(/^(\*|[0-9-]+)$/, 'must be digits or "-", or "*" for all senders'),
  );

const PairSchema = z.strictObject({ phone: PhoneSchema, callback: CallbackSchema });

/**
 * Body of register: an array of `{phone, callback}`. Silent in the spec: an empty array is
 * refused, and a pair repeated inside one request is refused as a field error (`21001`), since
 * "the same combination cannot be registered twice" and nothing is registered yet.
 */
export const RegisterSchema = z.array(PairSchema).check(
  z.minLength(1, 'at least one entry'),
  z.superRefine((pairs, ctx) => {
    const keys = pairs.map(({ phone, callback }) => `${phone}/${callback}`);
    keys.forEach((key, index) => {
      if (keys.indexOf(key) < index) {
        ctx.addIssue({ code: 'custom', path: [index], message: `${key} repeated` });
      }
    });
  }),
);

/** Body of delete: one `{phone, callback}`; `*` removes every sender of the number. */
export const DeleteSchema = PairSchema;

/** A query parameter that must be a whole number (absent → undefined). */
const whole = z.pipe(
  z.pipe(z.string().check(z.regex(/^\d+$/, 'must be a whole number')), z.transform(Number)),
  z.int().check(z.minimum(1, 'must be at least 1')),
);

/** Query of the list: phone (optional filter), listCnt and pageIdx (required, from 1). */
export const ListQuerySchema = z.object({
  phone: z.optional(PhoneSchema),
  listCnt: whole,
  pageIdx: whole,
});

/** `YYYYMMDDHHMMSS`, KST, and a real date-time. */
const CompactTimeSchema = z
  .string()
  .check(
    z.refine(
      (value) => /^\d{14}$/.test(value) && parseGatewayDateTime(value) !== undefined,
      'must be a real YYYYMMDDHHMMSS',
    ),
  );

/**
 * Query of the period list. Silent in the spec and chosen here: `fromTime` after `toTime` is
 * refused; there is no limit on the length of the period.
 */
export const PeriodQuerySchema = z
  .object({
    '080ArsNumber': z
      .string()
      .check(
        z.minLength(1, 'is required'),
        z.maxLength(NUMBER_MAX, `at most ${NUMBER_MAX} characters`),
      ),
    fromTime: CompactTimeSchema,
    toTime: CompactTimeSchema,
    page: z._default(whole, 1),
    pageSize: z._default(
      z.pipe(
        whole,
        z.number().check(z.maximum(PERIOD_PAGE_SIZE_MAX, `at most ${PERIOD_PAGE_SIZE_MAX}`)),
      ),
      PERIOD_PAGE_SIZE_DEFAULT,
    ),
  })
  .check(
    z.refine((query) => query.fromTime <= query.toTime, {
      path: ['toTime'],
      message: 'is before fromTime',
    }),
  );
