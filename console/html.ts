/*
 * HTML as text, escaped by construction: every value interpolated into `html` is escaped unless it
 * is itself the result of `html` (or `raw`, kept for the console's own constant markup). Pages are
 * rendered on the server from these pieces; nothing from a request or a stored item reaches the
 * page unescaped.
 */

const SAFE = Symbol('safe-html');

/** Markup that is already safe to place in a page. */
export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

const safe = (text: string): SafeHtml => ({ [SAFE]: true, text });

const isSafe = (value: unknown): value is SafeHtml =>
  typeof value === 'object' && value !== null && SAFE in value;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** `text` with every character that means something in HTML (or an attribute) escaped. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

const render = (value: Value): string => {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isSafe(value)) return value.text;
  return escapeHtml(String(value));
};

/** A template of markup: the literal parts are markup, every interpolated value is escaped. */
export const html = (strings: TemplateStringsArray, ...values: readonly Value[]): SafeHtml =>
  safe(
    strings.reduce(
      (out, part, index) =>
        out + part + (index < values.length ? render(values[index] as Value) : ''),
      '',
    ),
  );

/** The console's own constant markup (never a value from outside). */
export const raw = (text: string): SafeHtml => safe(text);

/** A page's text. */
export const toText = (value: SafeHtml): string => value.text;
