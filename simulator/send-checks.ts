import { cp949ByteLength, cp949UnencodableCharacters } from '../protocol/cp949.ts';

/**
 * Codes the send endpoints answer besides `10000`. Spec 01 §7 leaves invalid-field codes open;
 * the field notes name `21012`, `21014`, `21024`, `21029`, `21051`, `29002` and the duplicate
 * family; the rest are the simulator's choice.
 */
export const SEND_CODES = {
  /** Body is not JSON (or the multipart body cannot be read). HTTP 400. */
  malformedBody: '21000',
  /** Any other field rule; the message names the field's path. HTTP 400. */
  invalidField: '21001',
  tooManyRecipients: '21012',
  badFallback: '21014',
  /** A send with `fbInfoLst` but no `callback`: the SMS/LMS/MMS fallback has no sender number. */
  fallbackNeedsCallback: '21024',
  /** A file id registered through `POST /_sim/files` whose expiry has passed. */
  expiredFile: '21029',
  /** `resvReqDt` malformed, in the past or more than 30 days ahead (KST, simulated clock). */
  badReservationTime: '21030',
  /** More than 3 attachments (multipart files plus `fileIdLst`). HTTP 400. */
  tooManyAttachments: '21031',
  /** A fallback channel equal to the main channel or listed twice. */
  fallbackChannelRepeated: '21051',
  rateLimited: '29002',
} as const;

/** The duplicate-key family (field notes): each means "this `cliKey` was already accepted". */
export const DUPLICATE_CODES = ['29005', '29023', '29024'] as const;
export type DuplicateCode = (typeof DUPLICATE_CODES)[number];

/** The first broken rule of a send request: the code to answer and the field it is about. */
export class SendRuleError extends Error {
  override readonly name = 'SendRuleError';
  constructor(
    readonly code: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path || '(body)'}: ${detail}`);
  }
}

export type Json = Record<string, unknown>;
/** Checks one present (non-null) value found at `path`; throws {@link SendRuleError}. */
export type Check = (value: unknown, path: string) => void;

export interface Field {
  readonly required?: boolean;
  readonly check?: Check;
}
/** The fields an object may carry; any other field is refused (a misspelt field is a bug). */
export type Shape = Readonly<Record<string, Field>>;

export const fail = (path: string, detail: string, code: string = SEND_CODES.invalidField) => {
  throw new SendRuleError(code, path, detail);
};

export const at = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

export const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Reads `value` as an object of `shape`: unknown fields refused, required ones present. */
export const readObject = (value: unknown, path: string, shape: Shape): Json => {
  if (!isObject(value)) return fail(path, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!(key in shape)) fail(at(path, key), 'is not a field of this request');
  }
  for (const [key, field] of Object.entries(shape)) {
    const present = value[key];
    // JSON clients write an absent optional field as null as often as they leave it out.
    if (present === undefined || present === null || (field.required && present === '')) {
      if (field.required) fail(at(path, key), 'is required');
      continue;
    }
    field.check?.(present, at(path, key));
  }
  return value;
};

export const required = (check?: Check): Field =>
  check ? { required: true, check } : { required: true };
export const optional = (check?: Check): Field => (check ? { check } : {});

export interface TextRule {
  /** Most characters (code points). */
  readonly max?: number;
  /** Most CP949 bytes, the Korean carriers' count. */
  readonly maxBytes?: number;
  /** Refuse characters CP949 cannot encode (SMS). */
  readonly cp949Only?: boolean;
  readonly pattern?: RegExp;
  readonly oneOf?: readonly string[];
  /** Most line breaks. */
  readonly maxLines?: number;
}

/** The first way `text` breaks `rule`, or undefined. Also used for texts filled per recipient. */
export const textProblem = (text: string, rule: TextRule): string | undefined => {
  if (rule.oneOf && !rule.oneOf.includes(text)) return `must be one of ${rule.oneOf.join(', ')}`;
  if (rule.pattern && !rule.pattern.test(text)) return `must match ${rule.pattern.source}`;
  if (rule.max !== undefined && [...text].length > rule.max) {
    return `is ${[...text].length} characters; at most ${rule.max}`;
  }
  if (rule.cp949Only) {
    const unencodable = cp949UnencodableCharacters(text);
    if (unencodable.length > 0)
      return `has characters CP949 cannot encode: ${unencodable.join(' ')}`;
  }
  if (rule.maxBytes !== undefined) {
    const bytes = cp949ByteLength(text);
    if (bytes > rule.maxBytes) return `is ${bytes} bytes (CP949); at most ${rule.maxBytes}`;
  }
  if (rule.maxLines !== undefined) {
    const breaks = text.split('\n').length - 1;
    if (breaks > rule.maxLines) return `has ${breaks} line breaks; at most ${rule.maxLines}`;
  }
  return undefined;
};

export const text =
  (rule: TextRule = {}): Check =>
  (value, path) => {
    if (typeof value !== 'string') return fail(path, 'must be a string');
    const problem = textProblem(value, rule);
    if (problem) fail(path, problem);
  };

export const flag = text({ oneOf: ['Y', 'N'] });

export const bool: Check = (value, path) => {
  if (typeof value !== 'boolean') fail(path, 'must be a boolean');
};

export const number =
  (
    rule: { readonly min?: number; readonly max?: number; readonly integer?: boolean } = {},
  ): Check =>
  (value, path) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(path, 'must be a number');
    if (rule.integer && !Number.isInteger(value)) fail(path, 'must be an integer');
    if (rule.min !== undefined && value < rule.min) fail(path, `must be at least ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) fail(path, `must be at most ${rule.max}`);
  };

export const list =
  (
    item: Check | undefined,
    rule: { readonly min?: number; readonly max?: number; readonly tooManyCode?: string } = {},
  ): Check =>
  (value, path) => {
    if (!Array.isArray(value)) return fail(path, 'must be an array');
    if (rule.min !== undefined && value.length < rule.min) {
      fail(path, `needs at least ${rule.min} entries`);
    }
    if (rule.max !== undefined && value.length > rule.max) {
      fail(path, `has ${value.length} entries; at most ${rule.max}`, rule.tooManyCode);
    }
    value.forEach((entry, index) => {
      item?.(entry, at(path, index));
    });
  };

export const object =
  (shape: Shape): Check =>
  (value, path) => {
    readObject(value, path, shape);
  };

/** An object whose fields the spec does not show (coupon, carousel lists): only its kind is checked. */
export const anyObject: Check = (value, path) => {
  if (!isObject(value)) fail(path, 'must be an object');
};

/** Every string inside `value` (objects and arrays walked), with its path. */
export const stringsIn = (value: unknown, path: string): Array<[string, string]> => {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value))
    return value.flatMap((entry, index) => stringsIn(entry, at(path, index)));
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, entry]) => stringsIn(entry, at(path, key)));
  }
  return [];
};

/** Runs `check`, answering `code` instead of the generic invalid-field code (fallback info). */
export const withCode = (code: string, check: () => void): void => {
  try {
    check();
  } catch (error) {
    if (error instanceof SendRuleError && error.code === SEND_CODES.invalidField) {
      throw new SendRuleError(code, error.path, error.detail);
    }
    throw error;
  }
};
