/**
 * Where the parts of a JSON webhook body sit in its text. `JSON.parse` gives the values but
 * forgets the rest: a repeated key keeps only its last value, and a re-serialised item is not the
 * text that arrived (a 30-digit number becomes `9.876543210987654e+29`). The receiver reads the
 * body's layout beside its value, so that it keeps each quarantined item exactly as it was sent
 * and notices every part of the body that no event will carry.
 *
 * The scan is iterative (a body nested a million levels deep does not overflow the stack) and
 * runs on text that `JSON.parse` has already accepted, so it need not report syntax errors.
 */

/** A member of the body's top-level object: its key and where its value starts and ends. */
export interface BodyMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  /** When the value is an array: where each element starts and ends. */
  readonly elements?: readonly ElementSpan[];
}

/** One element of a top-level array, and the keys repeated inside it (paths below the element). */
export interface ElementSpan {
  readonly start: number;
  readonly end: number;
  readonly repeatedKeys: readonly string[];
}

export interface BodyLayout {
  /** The top-level members in order, a repeated key as often as it appears. */
  readonly members: readonly BodyMember[];
  /** Keys the top-level object repeats. */
  readonly repeatedKeys: readonly string[];
}

interface Frame {
  readonly kind: 'object' | 'array';
  readonly start: number;
  /** Where the frame sits: 0 for the body, 1 for a top-level member's value, 2 for its elements. */
  readonly depth: number;
  readonly seen?: Set<string>;
  /** The key whose value is being read (objects). */
  key?: string;
  readonly elements?: ElementSpan[];
  /** The element (depth 2 and below) that keys repeated here are reported on. */
  readonly element?: { repeatedKeys: string[] };
  readonly path: string;
}

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * The layout of a body whose top level is an object; `undefined` for any other JSON value. The
 * text must be JSON that `JSON.parse` accepts.
 */
export const bodyLayout = (text: string): BodyLayout | undefined => {
  let pos = 0;
  const skipSpace = () => {
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos += 1;
  };
  /** Skips a string token starting at `pos` and answers its raw text, quotes included. */
  const readString = (): string => {
    const start = pos;
    pos += 1;
    for (;;) {
      const char = text[pos];
      if (char === undefined) break;
      if (char === '\\') pos += 2;
      else if (char === '"') {
        pos += 1;
        break;
      } else pos += 1;
    }
    return text.slice(start, pos);
  };
  const skipLiteral = () => {
    while (pos < text.length) {
      const char = text[pos];
      if (char === ',' || char === ']' || char === '}' || isSpace(text.charCodeAt(pos))) break;
      pos += 1;
    }
  };

  skipSpace();
  if (text[pos] !== '{') return undefined;
  const members: BodyMember[] = [];
  const repeatedKeys: string[] = [];
  const stack: Frame[] = [];

  /** A value of `parent` ended at `end` (exclusive). */
  const valueEnded = (parent: Frame, start: number, end: number, elements?: ElementSpan[]) => {
    if (parent.depth === 0 && parent.key !== undefined)
      members.push({ key: parent.key, start, end, ...(elements ? { elements } : {}) });
  };

  const open = (kind: 'object' | 'array', parent: Frame | undefined) => {
    const start = pos;
    pos += 1;
    const depth = parent === undefined ? 0 : parent.depth + 1;
    const element =
      depth === 2 && parent?.kind === 'array' ? { repeatedKeys: [] as string[] } : parent?.element;
    const frame: Frame = {
      kind,
      start,
      depth,
      path:
        parent === undefined
          ? ''
          : `${parent.path}/${parent.kind === 'object' ? parent.key : (parent.elements?.length ?? 0)}`,
      ...(kind === 'object' ? { seen: new Set<string>() } : {}),
      ...(kind === 'array' && depth === 1 ? { elements: [] as ElementSpan[] } : {}),
      ...(element ? { element } : {}),
    };
    stack.push(frame);
  };

  const closeValue = (parent: Frame, start: number, end: number, child?: Frame) => {
    if (parent.kind === 'array' && parent.elements !== undefined)
      parent.elements.push({
        start,
        end,
        repeatedKeys: child?.element && child.depth === 2 ? child.element.repeatedKeys : [],
      });
    if (parent.kind === 'object') {
      valueEnded(parent, start, end, child?.elements);
      parent.key = undefined;
    }
  };

  open('object', undefined);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    skipSpace();
    const char = text[pos];
    if (char === undefined) break;
    if (char === ',') {
      pos += 1;
      continue;
    }
    if (char === '}' || char === ']') {
      pos += 1;
      stack.pop();
      const parent = stack[stack.length - 1];
      if (parent !== undefined) closeValue(parent, frame.start, pos, frame);
      continue;
    }
    if (frame.kind === 'object' && frame.key === undefined) {
      // A member: its key, the colon, then its value.
      const key = JSON.parse(readString()) as string;
      if (frame.seen?.has(key)) {
        const path = `${frame.path}/${key}`;
        if (frame.depth === 0) repeatedKeys.push(key);
        else frame.element?.repeatedKeys.push(path);
      }
      frame.seen?.add(key);
      frame.key = key;
      skipSpace();
      pos += 1; // ':'
      continue;
    }
    // A value of the frame: a container opens, a scalar ends here.
    const start = pos;
    if (char === '{' || char === '[') {
      open(char === '{' ? 'object' : 'array', frame);
      continue;
    }
    if (char === '"') readString();
    else skipLiteral();
    closeValue(frame, start, pos);
  }
  return { members, repeatedKeys };
};
