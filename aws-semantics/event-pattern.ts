/**
 * EventBridge event patterns, evaluated the way AWS documents them: the one matcher of the local
 * run and the tests wherever AWS decides by a pattern (Lambda event filtering; see
 * `lambda-event-filter.ts`). Written from the EventBridge user guide ("Event patterns", "Comparison
 * operators") and the Event Ruler README, AWS's open-source engine behind them:
 *
 * - a pattern is a JSON object; a field matches when its value in the event matches any rule of
 *   the field's array, and a pattern matches when every field does (`$or` joins alternatives);
 * - every field named must be present, except where `{"exists": false}` asks for its absence;
 *   `exists` looks at leaf values only (a field holding an object does not "exist");
 * - strings match character for character (no case folding or normalisation), and numbers by
 *   their JSON text: 300, 300.0 and 3.0e2 are three different values for equality;
 * - `numeric` applies to JSON numbers only (never to a string such as DynamoDB's `{"N": "2"}`),
 *   within ±5.0e9 and to six decimal places; `prefix`, `suffix`, `equals-ignore-case` and
 *   `wildcard` apply to strings only;
 * - an array in the event matches when any of its elements does, and fields of one sub-pattern
 *   must come from the same array element.
 *
 * A pattern that breaks the syntax is refused when it is compiled (`InvalidEventPatternError`), as
 * Lambda refuses it when the event source mapping is created.
 */

/** A JSON number with the text it was written as: equality compares the text. */
export class JsonNumber {
  constructor(
    readonly text: string,
    readonly value: number,
  ) {}
}

/** A JSON value whose numbers keep their text (`parseJsonKeepingNumbers`). */
export type JsonValue =
  | string
  | boolean
  | null
  | JsonNumber
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** The pattern breaks the event-pattern syntax; `path` names where. */
export class InvalidEventPatternError extends Error {
  override readonly name = 'InvalidEventPatternError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`invalid event pattern at ${path || 'the root'}: ${detail}`);
  }
}

/** The text is not JSON. */
export class InvalidJsonError extends Error {
  override readonly name = 'InvalidJsonError';
}

/** A compiled pattern. */
export type EventPatternMatcher = (event: JsonValue | undefined) => boolean;

const isNumber = (value: JsonValue | undefined): value is JsonNumber => value instanceof JsonNumber;

const isArray = (value: JsonValue | undefined): value is readonly JsonValue[] =>
  Array.isArray(value);

const isObject = (value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isNumber(value);

/** Parses JSON, keeping each number's text beside its value. */
export const parseJsonKeepingNumbers = (text: string): JsonValue => {
  let at = 0;
  const fail = (what: string): never => {
    throw new InvalidJsonError(`${what} at offset ${at}`);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text.charAt(at))) at += 1;
  };
  /** Steps over `char` when it comes next; says whether it did. */
  const skip = (char: string): boolean => {
    if (text.charAt(at) !== char) return false;
    at += 1;
    return true;
  };
  const value = (depth: number): JsonValue => {
    if (depth > 256) fail('nesting too deep');
    space();
    const char = text.charAt(at);
    if (char === '{') {
      at += 1;
      const object: Record<string, JsonValue> = {};
      space();
      if (skip('}')) return object;
      for (;;) {
        space();
        if (text.charAt(at) !== '"') fail('expected a member name');
        const key = string();
        space();
        if (!skip(':')) fail('expected ":"');
        // Later duplicates win, as JSON.parse has it.
        Object.defineProperty(object, key, {
          value: value(depth + 1),
          enumerable: true,
          configurable: true,
          writable: true,
        });
        space();
        if (skip(',')) continue;
        if (skip('}')) return object;
        fail('expected "," or "}"');
      }
    }
    if (char === '[') {
      at += 1;
      const array: JsonValue[] = [];
      space();
      if (skip(']')) return array;
      for (;;) {
        array.push(value(depth + 1));
        space();
        if (skip(',')) continue;
        if (skip(']')) return array;
        fail('expected "," or "]"');
      }
    }
    if (char === '"') return string();
    for (const [literal, result] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return result;
      }
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!number) return fail('unexpected character');
    at += number[0].length;
    return new JsonNumber(number[0], Number(number[0]));
  };
  const string = (): string => {
    const start = at;
    at += 1;
    while (at < text.length) {
      const char = text.charAt(at);
      if (char === '\\') at += 2;
      else if (char === '"') {
        at += 1;
        try {
          return JSON.parse(text.slice(start, at)) as string;
        } catch {
          return fail('malformed string');
        }
      } else at += 1;
    }
    return fail('unterminated string');
  };
  const result = value(0);
  space();
  if (at !== text.length) fail('unexpected text after the value');
  return result;
};

/** Turns a JavaScript value (as `JSON.stringify` would write it) into a `JsonValue`. */
export const toJsonValue = (value: unknown): JsonValue =>
  parseJsonKeepingNumbers(JSON.stringify(value) ?? 'null');

// Numeric matching works on fixed-point numbers: six decimal places, within ±5.0e9.
const NUMERIC_LIMIT = 5e9;
const fixedPoint = (value: number): number => Math.round(value * 1e6) / 1e6;
const inNumericRange = (value: number) =>
  Number.isFinite(value) && value >= -NUMERIC_LIMIT && value <= NUMERIC_LIMIT;

/** The operator names a `$or` alternative may not use as field names. */
const OPERATORS = new Set([
  'prefix',
  'suffix',
  'equals-ignore-case',
  'wildcard',
  'anything-but',
  'numeric',
  'exists',
  'cidr',
]);

type LeafRule = (value: JsonValue | undefined) => boolean;

/** Compiles a pattern (its JSON text or a parsed value); throws `InvalidEventPatternError`. */
export const compileEventPattern = (pattern: string | JsonValue): EventPatternMatcher => {
  let parsed: JsonValue;
  if (typeof pattern === 'string') {
    try {
      parsed = parseJsonKeepingNumbers(pattern);
    } catch (error) {
      throw new InvalidEventPatternError('', `not JSON (${(error as Error).message})`);
    }
  } else parsed = pattern;
  if (!isObject(parsed)) throw new InvalidEventPatternError('', 'a pattern must be a JSON object');
  return compileObject(parsed, '');
};

/** Whether `event` (JSON text or a parsed value) matches `pattern`. */
export const matchesEventPattern = (
  pattern: string | JsonValue,
  event: string | JsonValue,
): boolean =>
  compileEventPattern(pattern)(typeof event === 'string' ? parseJsonKeepingNumbers(event) : event);

const compileObject = (
  pattern: { readonly [key: string]: JsonValue },
  path: string,
): EventPatternMatcher => {
  const fields = Object.entries(pattern);
  if (fields.length === 0)
    throw new InvalidEventPatternError(path, 'an empty object matches nothing');
  const parts = fields.map(([key, rule]): EventPatternMatcher => {
    const where = path ? `${path}.${key}` : key;
    if (key === '$or' && isOrPrimitive(rule)) {
      const alternatives = rule.map((alternative, index) =>
        compileObject(alternative, `${where}[${index}]`),
      );
      return (node) => alternatives.some((alternative) => alternative(node));
    }
    if (isObject(rule)) {
      const nested = compileObject(rule, where);
      return (node) => nested(field(node, key));
    }
    if (isArray(rule)) {
      const leaf = compileLeaf(rule, where);
      return (node) => leaf(field(node, key));
    }
    throw new InvalidEventPatternError(where, 'a field must hold an array of rules or an object');
  });
  const all = (node: JsonValue | undefined) => parts.every((part) => part(node));
  // An array of objects matches when one element matches every field of this object: fields
  // combined in one sub-pattern come from one element.
  return (node) => (isArray(node) ? flatten(node).some((element) => all(element)) : all(node));
};

/** `$or` is the primitive only as an array of two or more objects with no operator keys. */
const isOrPrimitive = (
  rule: JsonValue,
): rule is ReadonlyArray<{ readonly [key: string]: JsonValue }> =>
  isArray(rule) &&
  rule.length >= 2 &&
  rule.every((item) => isObject(item) && Object.keys(item).every((key) => !OPERATORS.has(key)));

const field = (node: JsonValue | undefined, key: string): JsonValue | undefined =>
  isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;

const flatten = (values: readonly JsonValue[]): JsonValue[] =>
  values.flatMap((value) => (isArray(value) ? flatten(value) : [value]));

const isLeaf = (value: JsonValue | undefined): boolean =>
  value !== undefined && !isObject(value) && !isArray(value);

/** The leaf values at a field: none when absent, each element of an array. */
const leavesOf = (value: JsonValue | undefined): JsonValue[] =>
  value === undefined
    ? []
    : isArray(value)
      ? flatten(value).filter(isLeaf)
      : isLeaf(value)
        ? [value]
        : [];

const compileLeaf = (rules: readonly JsonValue[], path: string): EventPatternMatcher => {
  if (rules.length === 0)
    throw new InvalidEventPatternError(path, 'an empty array of rules matches nothing');
  const valueRules: LeafRule[] = [];
  const fieldRules: EventPatternMatcher[] = [];
  for (const rule of rules) {
    if (isObject(rule) && Object.hasOwn(rule, 'exists')) {
      const keys = Object.keys(rule);
      const exists = rule.exists;
      if (keys.length !== 1 || typeof exists !== 'boolean')
        throw new InvalidEventPatternError(
          path,
          '"exists" takes true or false, alone in its object',
        );
      fieldRules.push((value) => leavesOf(value).length > 0 === exists);
    } else valueRules.push(compileValueRule(rule, path));
  }
  return (value) =>
    fieldRules.some((rule) => rule(value)) ||
    leavesOf(value).some((leaf) => valueRules.some((rule) => rule(leaf)));
};

const compileValueRule = (rule: JsonValue, path: string): LeafRule => {
  if (rule === null) return (value) => value === null;
  if (typeof rule === 'boolean') return (value) => value === rule;
  if (typeof rule === 'string') return (value) => value === rule;
  if (isNumber(rule)) return (value) => isNumber(value) && value.text === rule.text;
  if (isArray(rule)) throw new InvalidEventPatternError(path, 'a rule cannot be an array');
  const entries = Object.entries(rule);
  const [entry] = entries;
  if (entries.length !== 1 || entry === undefined)
    throw new InvalidEventPatternError(path, 'a rule object must hold exactly one operator');
  const [operator, operand] = entry;
  switch (operator) {
    case 'prefix':
    case 'suffix': {
      const test = stringOperand(operand, path, operator);
      return (value) =>
        typeof value === 'string' &&
        (operator === 'prefix'
          ? test.fold(value).startsWith(test.text)
          : test.fold(value).endsWith(test.text));
    }
    case 'equals-ignore-case': {
      const text = plainString(operand, path, operator);
      return (value) => typeof value === 'string' && foldCase(value) === foldCase(text);
    }
    case 'wildcard': {
      const regex = wildcardRegex(plainString(operand, path, operator), path);
      return (value) => typeof value === 'string' && regex.test(value);
    }
    case 'numeric':
      return compileNumeric(operand, path);
    case 'cidr':
      return compileCidr(plainString(operand, path, operator), path);
    case 'anything-but':
      return compileAnythingBut(operand, path);
    default:
      throw new InvalidEventPatternError(path, `unknown operator "${operator}"`);
  }
};

const foldCase = (text: string) => text.toLowerCase();

const plainString = (operand: JsonValue, path: string, operator: string): string => {
  if (typeof operand !== 'string')
    throw new InvalidEventPatternError(path, `"${operator}" takes a string`);
  return operand;
};

/** `prefix` and `suffix` take a string, or `{"equals-ignore-case": string}`. */
const stringOperand = (operand: JsonValue, path: string, operator: string) => {
  if (typeof operand === 'string') return { text: operand, fold: (value: string) => value };
  if (isObject(operand)) {
    const keys = Object.keys(operand);
    const inner = operand['equals-ignore-case'];
    if (keys.length === 1 && typeof inner === 'string')
      return { text: foldCase(inner), fold: foldCase };
  }
  throw new InvalidEventPatternError(
    path,
    `"${operator}" takes a string or {"equals-ignore-case": string}`,
  );
};

/** `*` matches any run of characters; `\*` is a star and `\\` a backslash; `**` is refused. */
const wildcardRegex = (pattern: string, path: string): RegExp => {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === '\\') {
      const next = pattern.charAt(index + 1);
      if (next !== '*' && next !== '\\')
        throw new InvalidEventPatternError(path, 'a backslash may only escape "*" or "\\"');
      source += `\\${next}`;
      index += 1;
    } else if (char === '*') {
      if (pattern.charAt(index + 1) === '*')
        throw new InvalidEventPatternError(path, 'consecutive wildcard characters are not allowed');
      source += '[\\s\\S]*';
    } else source += char.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
};

const compileNumeric = (operand: JsonValue, path: string): LeafRule => {
  if (!isArray(operand) || operand.length === 0 || operand.length % 2 !== 0)
    throw new InvalidEventPatternError(path, '"numeric" takes pairs of an operator and a number');
  const conditions: Array<(value: number) => boolean> = [];
  let lower = false;
  let upper = false;
  for (let index = 0; index < operand.length; index += 2) {
    const operator = operand[index];
    const bound = operand[index + 1];
    if (!isNumber(bound) || !inNumericRange(bound.value))
      throw new InvalidEventPatternError(
        path,
        '"numeric" bounds must be JSON numbers from -5.0e9 to 5.0e9',
      );
    const limit = fixedPoint(bound.value);
    switch (operator) {
      case '=':
        if (operand.length !== 2)
          throw new InvalidEventPatternError(path, '"=" cannot be combined with a range');
        conditions.push((value) => value === limit);
        break;
      case '<':
      case '<=':
        if (upper) throw new InvalidEventPatternError(path, 'two upper bounds');
        upper = true;
        conditions.push(operator === '<' ? (value) => value < limit : (value) => value <= limit);
        break;
      case '>':
      case '>=':
        if (lower) throw new InvalidEventPatternError(path, 'two lower bounds');
        lower = true;
        conditions.push(operator === '>' ? (value) => value > limit : (value) => value >= limit);
        break;
      default:
        throw new InvalidEventPatternError(
          path,
          `unknown numeric operator ${JSON.stringify(operator)}`,
        );
    }
  }
  return (value) => {
    if (!isNumber(value) || !inNumericRange(value.value)) return false;
    const number = fixedPoint(value.value);
    return conditions.every((condition) => condition(number));
  };
};

const compileAnythingBut = (operand: JsonValue, path: string): LeafRule => {
  if (isObject(operand)) {
    const entries = Object.entries(operand);
    const [entry] = entries;
    if (entries.length !== 1 || entry === undefined)
      throw new InvalidEventPatternError(path, '"anything-but" takes one operator in its object');
    const [operator, inner] = entry;
    if (operator === 'prefix' || operator === 'suffix' || operator === 'equals-ignore-case') {
      const texts = stringList(inner, path, `anything-but ${operator}`);
      return (value) => {
        if (typeof value !== 'string') return true;
        if (operator === 'prefix') return !texts.some((text) => value.startsWith(text));
        if (operator === 'suffix') return !texts.some((text) => value.endsWith(text));
        return !texts.some((text) => foldCase(text) === foldCase(value));
      };
    }
    if (operator === 'wildcard') {
      const regexes = stringList(inner, path, 'anything-but wildcard').map((text) =>
        wildcardRegex(text, path),
      );
      return (value) => typeof value !== 'string' || !regexes.some((regex) => regex.test(value));
    }
    throw new InvalidEventPatternError(path, `"anything-but" cannot take "${operator}"`);
  }
  const values = isArray(operand) ? operand : [operand];
  if (values.length === 0)
    throw new InvalidEventPatternError(path, '"anything-but" needs at least one value');
  if (values.every((value) => typeof value === 'string')) {
    const strings = new Set(values as string[]);
    return (value) => typeof value !== 'string' || !strings.has(value);
  }
  if (values.every((value) => isNumber(value))) {
    const numbers = (values as JsonNumber[]).map((value) => fixedPoint(value.value));
    return (value) => !isNumber(value) || !numbers.includes(fixedPoint(value.value));
  }
  throw new InvalidEventPatternError(
    path,
    '"anything-but" takes a string, a number, a list of only strings or only numbers, or an operator object',
  );
};

const stringList = (operand: JsonValue, path: string, what: string): string[] => {
  const values = isArray(operand) ? operand : [operand];
  if (values.length === 0 || !values.every((value) => typeof value === 'string'))
    throw new InvalidEventPatternError(path, `"${what}" takes a string or a list of strings`);
  return values as string[];
};

const compileCidr = (cidr: string, path: string): LeafRule => {
  const [address, bitsText, ...rest] = cidr.split('/');
  const network = address === undefined ? undefined : ipBits(address);
  const bits = Number(bitsText);
  if (
    rest.length > 0 ||
    network === undefined ||
    !Number.isInteger(bits) ||
    bits < 0 ||
    bits > network.length
  )
    throw new InvalidEventPatternError(
      path,
      `"cidr" takes an IPv4 or IPv6 CIDR block, got "${cidr}"`,
    );
  const prefix = network.slice(0, bits);
  return (value) => {
    if (typeof value !== 'string') return false;
    const candidate = ipBits(value);
    return (
      candidate !== undefined && candidate.length === network.length && candidate.startsWith(prefix)
    );
  };
};

/** An IP address as a string of bits, or undefined when it is not one. */
const ipBits = (address: string): string | undefined => {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4) {
    const octets = v4.slice(1).map(Number);
    if (octets.some((octet) => octet > 255)) return undefined;
    return octets.map((octet) => octet.toString(2).padStart(8, '0')).join('');
  }
  if (!/^[0-9a-fA-F:]+$/.test(address) || !address.includes(':')) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groups = (text: string | undefined) => (text ? text.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array.from({ length: missing }, () => '0'), ...tail];
  if (all.some((group) => group.length === 0 || group.length > 4)) return undefined;
  return all.map((group) => Number.parseInt(group, 16).toString(2).padStart(16, '0')).join('');
};
