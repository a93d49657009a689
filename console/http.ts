import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { LISTED_STATUSES } from '../ops/latest-messages.ts';
import type { Target } from '../ops/target.ts';
import { formatTime } from '../ops/times.ts';
import { EVENT_TYPES } from './event-types.ts';
import { html, type SafeHtml, toText } from './html.ts';

/*
 * The console's HTTP plumbing: answers, the page frame, its assets and security headers, and the
 * validation of query parameters and forms (`app.ts` routes the requests).
 */

/** Where the console is served. */
export const CONSOLE_PATH = '/console';

export interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

const ROOT = join(import.meta.dirname, 'assets');
const require = createRequire(import.meta.url);
const UPLOT_DIR = join(require.resolve('uplot'), '..');

export const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'console.js': { file: join(ROOT, 'console.js'), type: 'text/javascript; charset=utf-8' },
  'console.css': { file: join(ROOT, 'console.css'), type: 'text/css; charset=utf-8' },
  'favicon.svg': { file: join(ROOT, 'favicon.svg'), type: 'image/svg+xml' },
  'uplot.js': {
    file: join(UPLOT_DIR, 'uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uplot.css': { file: join(UPLOT_DIR, 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on a form POST.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** Hosts a browser on this machine uses for a loopback server; anything else is refused (DNS rebinding). */
export const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/;

const MAX_FORM_BYTES = 16 * 1024;

export const page = (
  title: string,
  csrf: string,
  target: Target,
  body: SafeHtml,
  scripts: readonly string[] = [],
): Answer => ({
  status: 200,
  type: 'text/html; charset=utf-8',
  body: toText(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${csrf}">
<title>${title} · msgbridge console</title>
<link rel="icon" type="image/svg+xml" href="${CONSOLE_PATH}/assets/favicon.svg"><link rel="stylesheet" href="${CONSOLE_PATH}/assets/uplot.css"><link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css">
</head><body>
<header><a class="brand" href="${CONSOLE_PATH}">msgbridge console</a>
<nav><a href="${CONSOLE_PATH}">Messages</a><a href="${CONSOLE_PATH}/flow">Flow</a><a href="${CONSOLE_PATH}/quarantine">Quarantine &amp; failures</a></nav>
<span class="target">${target.describe()}</span></header>
<main><h1>${title}</h1>
${body}</main>
${scripts.map((src) => html`<script src="${CONSOLE_PATH}/assets/${src}"></script>`)}
</body></html>`),
});

export const errorPage = (status: number, message: string): Answer => ({
  status,
  type: 'text/html; charset=utf-8',
  body: toText(
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${message}</p><p><a href="${CONSOLE_PATH}">back to the console</a></p></body></html>`,
  ),
});

export const json = (value: unknown, status = 200): Answer => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(value),
});

export const redirect = (location: string): Answer => ({
  status: 303,
  type: 'text/plain; charset=utf-8',
  body: '',
  headers: { location },
});

/** A bad query parameter or form field: 400 with what was wrong. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

export const KEY = z
  .string()
  .check(
    z.trim(),
    z.regex(/^[\x21-\x7e]{1,100}$/, 'a key is 1 to 100 printable characters without spaces'),
  );
export const ISO = z.string().check(
  z.trim(),
  z.refine(
    (value) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
    'an ISO 8601 time with its zone, e.g. 2026-11-27T09:00:00Z',
  ),
);

export const HomeQuery = z.strictObject({
  status: z.optional(z.union([z.literal(''), z.enum(LISTED_STATUSES)])),
  after: z.optional(z.string().check(z.regex(/^[\w-]{1,600}$/, 'a cursor is one this list gave'))),
  scan: z.optional(z.literal('1')),
});
export const MessageQuery = z.strictObject({
  q: z.optional(z.string().check(z.trim(), z.maxLength(120))),
  by: z.optional(z.enum(['key', 'phone'])),
  scan: z.optional(z.literal('1')),
});
export const FlowQuery = z.strictObject({
  type: z.optional(z.union([z.literal(''), z.enum(EVENT_TYPES)])),
  code: z.optional(
    z.string().check(z.trim(), z.regex(/^[\w-]{0,40}$/, 'a code is letters, digits, "-" and "_"')),
  ),
  after: z.optional(z.string().check(z.regex(/^\d{1,9}$/))),
  scan: z.optional(z.literal('1')),
  window: z.optional(z.enum(['hour', 'day'])),
});
export const ReplayForm = z.strictObject({
  csrf: z.string(),
  from: ISO,
  to: ISO,
  confirm: z.optional(z.literal('yes')),
});
export const RedriveForm = z.strictObject({
  csrf: z.string(),
  max: z.optional(z.string().check(z.regex(/^\d{1,6}$/))),
  confirm: z.optional(z.literal('yes')),
});
export const RepublishForm = z.strictObject({
  csrf: z.string(),
  confirm: z.optional(z.literal('yes')),
});

export const parseQuery = <T extends z.ZodMiniType>(
  schema: T,
  params: URLSearchParams,
): z.output<T> => {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) throw new BadRequest(`${name} is given twice`);
    seen.add(name);
  }
  const parsed = schema.safeParse(Object.fromEntries(params));
  if (!parsed.success) {
    throw new BadRequest(
      parsed.error.issues
        .map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`)
        .join('; '),
    );
  }
  return parsed.data;
};

export const readForm = async (request: IncomingMessage): Promise<URLSearchParams> => {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded'))
    throw new BadRequest('a form is sent as application/x-www-form-urlencoded');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new BadRequest('the form is too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};

export const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export const hidden = (fields: Readonly<Record<string, string>>): SafeHtml =>
  html`${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;

/**
 * A time as the console shows it: in KST, the gateway's and its users' zone, with UTC on hover and
 * the instant itself in `datetime`.
 */
export const fmt = (at: string | undefined): SafeHtml => {
  if (at === undefined) return html`—`;
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return html`${at}`;
  const kst = formatTime(ms, 'KST', { millis: true });
  const utc = formatTime(ms, 'UTC', { millis: true });
  return html`<time datetime="${at}" title="${utc}">${kst}</time>`;
};
