import * as z from './zod.ts';

/*
 * The lenient pieces every gateway response schema is built from (gateway field notes): unknown
 * fields are kept, counts may be numbers or numeric strings, `null` lists are empty lists. Kept
 * apart from the request schemas of `common.ts`, so that a function that
 * only reads gateway items (the webhook receivers) builds none of the request schemas at start.
 */

/** Fields that all read with one schema, each made afresh by `make`: spread into an object. */
export const fieldsOf =
  <S extends z.core.SomeType>(make: () => S) =>
  <const K extends string>(...names: K[]): { [P in K]: S } =>
    Object.fromEntries(names.map((name) => [name, make()])) as { [P in K]: S };

/** Echoed back in webhook reports when the console option is on. */
export const UserCustomFieldsSchema = z.record(z.string(), z.unknown());
export type UserCustomFields = z.infer<typeof UserCustomFieldsSchema>;

export const SUCCESS_CODE = '10000';

/** Result codes are strings (`"10000"`); a numeric code is tolerated and turned into one. */
export const GatewayCodeSchema = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

/** Identifiers the gateway writes as a number or a string; kept as a string. */
export const GatewayIdSchema = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

/** Counts, sizes and averages arrive as numbers or numeric strings; always read as a number. */
export const NumericSchema = z.union([
  z.number(),
  z.pipe(
    z
      .string()
      .check(z.trim(), z.regex(/^-?\d+(?:\.\d+)?$/, 'expected a number or a numeric string')),
    z.transform(Number),
  ),
]);

/**
 * A count or size that may be missing, `null`, a number, a numeric string, or an empty (or
 * blank) string, which is how the gateway writes "not given" in a field it otherwise writes as a
 * string: read as `null`, so that one unfilled size does not fail the item that carries it. Any
 * other text is still refused.
 */
export const LenientCountSchema = z.nullish(
  z.union([
    NumericSchema,
    z.pipe(
      z.string().check(z.regex(/^\s*$/, 'expected a number or a numeric string')),
      z.transform(() => null),
    ),
  ]),
);

/** `Y`/`N`, `true`/`false` or a boolean, read as a boolean. */
export const LenientBooleanSchema = z.pipe(
  z.union([z.boolean(), z.enum(['true', 'false', 'Y', 'N', 'y', 'n'])]),
  z.transform((value) => value === true || value === 'true' || value === 'Y' || value === 'y'),
);

/** An optional string the gateway may also write as `null` (for example `moTitle`). */
export const NullableStringSchema = z.nullish(z.string());

/** A list that may be `null` or missing: both read as `[]`. */
export const listOrEmpty = <T extends z.core.SomeType>(item: T) =>
  z.pipe(
    z.nullish(z.array(item)),
    z.transform((list) => list ?? []),
  );

/**
 * A list that must be present but may be `null` (read as `[]`). Used where a missing list means
 * the body is not the shape we think it is, so it must fail instead of reading as "nothing".
 */
export const presentListOrEmpty = <T extends z.core.SomeType>(item: T) =>
  z.pipe(
    z.nullable(z.array(item)),
    z.transform((list) => list ?? []),
  );

/**
 * A list the spec leaves open to being one object: both a list and one object read as a list,
 * and `null` or a missing value as `[]`.
 */
export const oneOrMany = <T extends z.core.SomeType>(item: T) =>
  z.pipe(
    z.nullish(z.union([z.array(item), item])),
    z.transform((value): z.output<T>[] => {
      if (value === null || value === undefined) return [];
      return Array.isArray(value) ? value : [value];
    }),
  );

/** Text fields of a response, each optional and possibly `null`: spread into a `looseObject`. */
export const nullableStrings = fieldsOf(() => NullableStringSchema);
/** Identifier fields of a response, each kept as a string and possibly `null` or missing. */
export const nullishIds = fieldsOf(() => z.nullish(GatewayIdSchema));
/** Count fields of a response, each read as a number and possibly `null` or missing. */
export const nullishCounts = fieldsOf(() => z.nullish(NumericSchema));

/** A result `code` and its `message`, a missing or `null` message read as `''`. */
export const codeAndMessageShape = {
  code: GatewayCodeSchema,
  message: z.pipe(
    z.nullish(z.string()),
    z.transform((message) => message ?? ''),
  ),
};

/**
 * The response envelope `{code, message, data?}` (spec 01 §2). Unknown top-level fields are
 * kept. `data` is validated as given: use it on success bodies, or read
 * {@link GatewayEnvelopeSchema} first, since an error body's `data` can have any shape
 * (`21399` nests another code in it).
 */
export const envelopeSchema = <T extends z.core.SomeType>(dataSchema: T) =>
  z.looseObject({ ...codeAndMessageShape, data: z.optional(dataSchema) });

/** The envelope with `data` unchecked: the first read of any gateway answer. */
export const GatewayEnvelopeSchema = envelopeSchema(z.unknown());
export type GatewayEnvelope = z.infer<typeof GatewayEnvelopeSchema>;
