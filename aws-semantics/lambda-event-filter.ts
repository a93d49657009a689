/**
 * Lambda event filtering, as the Lambda developer guide documents it ("Control which events
 * Lambda sends to your function"), over records exactly as the event source delivers them: an
 * event source mapping's `FilterCriteria` holds up to five patterns (ten with a quota increase),
 * and a record goes to the function when any of them matches it, each evaluated with the
 * EventBridge pattern rules of `event-pattern.ts`.
 *
 * - DynamoDB streams: the record is matched as Lambda delivers it, attribute values in DynamoDB
 *   JSON, so a number is the string of `{"N": "2"}` and a `numeric` rule never matches it.
 * - SQS: the message `body` is matched as JSON when it is a JSON object and as a plain string
 *   otherwise; when a pattern's `body` rules are of the other kind, the message matches nothing
 *   (the guide's table "Incoming message body format / Filter pattern body format").
 *
 * A record that matches no filter is dropped by Lambda (a stream's iterator moves past it; an SQS
 * message is deleted).
 */
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import {
  compileEventPattern,
  InvalidEventPatternError,
  type JsonValue,
  parseJsonKeepingNumbers,
  toJsonValue,
} from './event-pattern.ts';

/** `FilterCriteria` of an event source mapping, as CloudFormation and the Lambda API hold it. */
export interface FilterCriteria {
  readonly Filters?: ReadonlyArray<{ readonly Pattern?: string }>;
}

/** The `FilterCriteria` of patterns given as objects, as CDK's `FilterCriteria.filter` writes them. */
export const criteriaOf = (...patterns: readonly object[]): FilterCriteria => ({
  Filters: patterns.map((pattern) => ({ Pattern: JSON.stringify(pattern) })),
});

/** Most filters one event source mapping takes (the default quota is 5; 10 on request). */
export const MAX_FILTERS = 10;

/** The kinds of event source whose records this module filters. */
export type FilteredSource = 'dynamodb' | 'sqs';

/**
 * The filter of an event source mapping: true when Lambda hands the record to the function.
 * Without filters every record passes. Throws `InvalidEventPatternError` for criteria Lambda
 * refuses when the mapping is created.
 */
export function compileFilterCriteria(
  criteria: FilterCriteria | undefined,
  source: 'dynamodb',
): (record: DynamoDBRecord) => boolean;
export function compileFilterCriteria(
  criteria: FilterCriteria | undefined,
  source: 'sqs',
): (record: SQSRecord) => boolean;
export function compileFilterCriteria(
  criteria: FilterCriteria | undefined,
  source: FilteredSource,
): (record: DynamoDBRecord | SQSRecord) => boolean {
  const filters = criteria?.Filters ?? [];
  if (filters.length > MAX_FILTERS)
    throw new InvalidEventPatternError(
      '',
      `an event source mapping takes at most ${MAX_FILTERS} filters, got ${filters.length}`,
    );
  if (filters.length === 0) return () => true;
  const compiled = filters.map((filter, index) => {
    if (typeof filter.Pattern !== 'string')
      throw new InvalidEventPatternError(`Filters[${index}]`, 'a filter needs a Pattern string');
    const parsed = parsePattern(filter.Pattern, index);
    return { matches: compileEventPattern(parsed), body: bodyFormat(parsed) };
  });
  if (source === 'dynamodb')
    return (record) => {
      const event = toJsonValue(record);
      return compiled.some(({ matches }) => matches(event));
    };
  return (record) => {
    const sqs = record as SQSRecord;
    const json = jsonBody(sqs.body);
    const event = toJsonValue({ ...sqs, body: null });
    const withBody = { ...(event as Record<string, JsonValue>), body: json ?? sqs.body };
    return compiled.some(
      ({ matches, body }) =>
        (body === 'none' || (body === 'json') === (json !== undefined)) && matches(withBody),
    );
  };
}

const parsePattern = (pattern: string, index: number): JsonValue => {
  try {
    return parseJsonKeepingNumbers(pattern);
  } catch (error) {
    throw new InvalidEventPatternError(
      `Filters[${index}]`,
      `the Pattern is not JSON (${(error as Error).message})`,
    );
  }
};

/** Whether a pattern's `body` rules expect a JSON body, a plain string, or say nothing of it. */
const bodyFormat = (pattern: JsonValue): 'json' | 'plain' | 'none' => {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) return 'none';
  const body = (pattern as Record<string, JsonValue>).body;
  if (body === undefined) return 'none';
  return Array.isArray(body) ? 'plain' : 'json';
};

/** The body as a JSON object, or undefined when it is not one. */
const jsonBody = (body: string): JsonValue | undefined => {
  try {
    const parsed = parseJsonKeepingNumbers(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
};
