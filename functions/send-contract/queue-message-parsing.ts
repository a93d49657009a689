import type * as z from '../../gateway/schemas/zod.ts';
import { SEND_CHANNELS, type SendChannel } from './channels.ts';
import {
  CHANNEL_SPEC_SECTION,
  channelProblem,
  ENVELOPES,
  envelopeKeys,
  isObject,
  type JsonObject,
  jsonPath,
  MAX_NESTING_LEVELS,
  type Problem,
  RCS_VARIANTS,
  REQUEST_SCHEMAS,
  type SendEnvelope,
  type SendMessage,
} from './queue-message.ts';
import { crossFieldProblems } from './queue-message-checks.ts';

/*
 * Parsing a queue message against its contract (queue-message.ts). Parsing is two steps because
 * the request schemas are strict objects with refinements, which zod 4 cannot extend: the
 * envelope fields are checked by the channel's envelope, the remaining keys by the channel's
 * request schema; only the named channel's schemas are built (on its first message). The checks that need more than one part of the message or a clock run on the
 * raw input (queue-message-checks.ts), so every problem is reported in one pass.
 */

export type ParseSendMessageResult =
  | { ok: true; message: SendMessage }
  | { ok: false; problems: Problem[] };

/** Says "is required" for a missing field instead of "expected string, received undefined". */
const parseParams = {
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined,
};

const channelLabel = (channel: SendChannel, variant?: string): string =>
  `${channel}${variant === undefined ? '' : ` (variant ${variant})`} request (spec 01 §${CHANNEL_SPEC_SECTION[channel]})`;

const unknownKeyMessage = (key: string, atRoot: boolean, label: string): string => {
  if (!atRoot) return 'is not a known field here';
  if (key === 'variant') return `this channel has no variant: it is not a field of the ${label}`;
  if (key === 'attachments') return 'attachments are for channel "mms" only';
  return `is not a field of the ${label}`;
};

/** zod issues as problems; an unknown-keys issue becomes one problem per key, at the key. */
const toProblems = (issues: readonly z.core.$ZodIssue[], label = ''): Problem[] =>
  issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: jsonPath([...issue.path, key]),
          message: unknownKeyMessage(key, issue.path.length === 0, label),
        }))
      : [{ path: jsonPath(issue.path), message: issue.message }],
  );

/** Parses `body` with `schema`, adding its problems; the parsed body, or `undefined`. */
const parseBody = <T>(
  schema: z.ZodMiniType<T>,
  body: JsonObject,
  label: string,
  problems: Problem[],
): T | undefined => {
  const result = schema.safeParse(body, parseParams);
  if (result.success) return result.data;
  problems.push(...toProblems(result.error.issues, label));
  return undefined;
};

const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.find((candidate) => candidate === value);

/**
 * Validates the body with the channel's request schema and, when the envelope is valid too,
 * builds the message. With an invalid envelope the body is still checked, so that every problem
 * is reported: an unreadable rcs `variant` is checked as `v1.1`, whose fields include both other
 * variants'.
 */
const parseChannelBody = (
  channel: SendChannel,
  envelope: SendEnvelope | undefined,
  raw: JsonObject,
  body: JsonObject,
  problems: Problem[],
): SendMessage | undefined => {
  switch (channel) {
    case 'sms': {
      const parsed = parseBody(REQUEST_SCHEMAS.sms, body, channelLabel(channel), problems);
      if (parsed === undefined || envelope?.channel !== 'sms') return undefined;
      return { channel, variant: envelope.variant ?? 'xms', body: parsed };
    }
    case 'mms': {
      const parsed = parseBody(REQUEST_SCHEMAS.mms, body, channelLabel(channel), problems);
      if (parsed === undefined || envelope?.channel !== 'mms') return undefined;
      return {
        channel,
        variant: envelope.variant ?? 'xms',
        body: parsed,
        attachments: envelope.attachments ?? [],
      };
    }
    case 'rcs': {
      const variant = oneOf(RCS_VARIANTS, raw.variant) ?? 'v1.1';
      const label = channelLabel(channel, variant);
      const valid = envelope?.channel === 'rcs';
      const parsed = parseBody<JsonObject>(REQUEST_SCHEMAS.rcs[variant], body, label, problems);
      // Each variant is paired with its own schema in REQUEST_SCHEMAS; TypeScript cannot follow
      // that pairing across the union, so the message is asserted once here.
      return parsed === undefined || !valid
        ? undefined
        : ({ channel, variant, body: parsed } as SendMessage);
    }
    default: {
      const schema = REQUEST_SCHEMAS[channel];
      const parsed = parseBody<JsonObject>(schema, body, channelLabel(channel), problems);
      // As for rcs: each plain channel is paired with its own schema in REQUEST_SCHEMAS.
      return parsed === undefined ? undefined : ({ channel, body: parsed } as SendMessage);
    }
  }
};
/**
 * The first object or array below {@link MAX_NESTING_LEVELS}, as a problem at its path; found
 * without recursion (an explicit stack, depth-first), so any depth JSON.parse returns is safe.
 */
const nestingProblem = (input: JsonObject): Problem | undefined => {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: input, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, path } = next;
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= MAX_NESTING_LEVELS) {
      return {
        path: jsonPath(path),
        message: `nested deeper than ${MAX_NESTING_LEVELS} levels of objects and arrays (the message itself is the first)`,
      };
    }
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    // Reversed onto the stack, so the first key is looked at first: the problem names the path a
    // reader finds first.
    for (const [key, item] of entries.reverse()) stack.push({ value: item, path: [...path, key] });
  }
  return undefined;
};

/** Keeps the first problem of each path and message. */
const distinct = (problems: readonly Problem[]): Problem[] => {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * Parses one queue message and reports every problem at once: the envelope (`channel`,
 * `variant`, `attachments`), the channel's request schema (field rules, CP949 byte limits,
 * recipients, buttons, fallbacks, `cliKey`s, `resvReqDt` format), the 30-day scheduling horizon
 * against `now`, template variables in every recipient's `mergeData`, and attachments against
 * file ids. The producer helper, the `validate` command and the sender all call this.
 *
 * zod runs an object's cross-field refinements only when none of its fields has a missing or
 * mistyped value, so a message with such an error may show further problems once it is fixed.
 */
export const parseSendMessage = (
  input: unknown,
  options: { now: Date },
): ParseSendMessageResult => {
  if (!isObject(input)) {
    return { ok: false, problems: [{ path: '$', message: 'a queue message is a JSON object' }] };
  }
  // Before anything else: every check below walks the message recursively.
  const tooDeep = nestingProblem(input);
  if (tooDeep !== undefined) return { ok: false, problems: [tooDeep] };
  const channel = oneOf(SEND_CHANNELS, input.channel);
  if (channel === undefined) return { ok: false, problems: [channelProblem(input.channel)] };
  const problems: Problem[] = [];
  const envelope = ENVELOPES[channel]().safeParse(input, parseParams);
  if (!envelope.success) problems.push(...toProblems(envelope.error.issues));

  const ownKeys = envelopeKeys(channel);
  const body = Object.fromEntries(Object.entries(input).filter(([key]) => !ownKeys.includes(key)));
  const message = parseChannelBody(
    channel,
    envelope.success ? envelope.data : undefined,
    input,
    body,
    problems,
  );
  problems.push(...crossFieldProblems(channel, input, body, options.now));

  if (message === undefined || problems.length > 0) {
    return { ok: false, problems: distinct(problems) };
  }
  return { ok: true, message };
};
