import { SORT_KEY } from '../../functions/commons/table-keys.ts';
import {
  BadCursorError,
  LISTED_STATUSES,
  type ListedMessage,
  type ListedStatus,
  latestMessages,
  pageOf,
} from '../../ops/latest-messages.ts';
import { findByPhone, phoneDigits, revealingMask } from '../../ops/phone-search.ts';
import { type Trace, traceKey } from '../../ops/trace.ts';
import type { ConsoleContext } from '../context.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import {
  type Answer,
  BadRequest,
  CONSOLE_PATH,
  fmt,
  HomeQuery,
  hidden,
  KEY,
  MessageQuery,
  page,
  parseQuery,
} from '../http.ts';
import { renderTimeline, timelineOf } from '../timeline.ts';

/** Messages per page of the landing list. */
const PAGE_SIZE = 25;

/** The message page: the search box, a message's timeline, and the messages that name a phone number. */
export const messagePages = (context: ConsoleContext) => {
  const { target, csrf, eventLog, onStack } = context;
  // One box for every way to find a message: a key, or a phone number entered in full.
  const searchForm = (
    q = '',
  ) => html`<form class="search" method="get" action="${CONSOLE_PATH}/message">
  <label for="q">Find</label>
  <input id="q" name="q" type="search" value="${q}" required maxlength="120" autofocus placeholder="cliKey, msgKey, moKey or a phone number" aria-label="cliKey, msgKey, moKey or a phone number">
  <button type="submit">Search</button></form>`;

  /** The landing page: the search box, then the latest messages (a Scan, asked for on a stack). */
  const home = async (params: URLSearchParams = new URLSearchParams()): Promise<Answer> => {
    const query = parseQuery(HomeQuery, params);
    const status = query.status || undefined;
    const scan = !onStack || query.scan === '1';
    return page(
      'Messages',
      csrf,
      target,
      html`${searchForm()}<p class="muted">A key is read from the event table by DynamoDB Query. A phone number (8 to 12 digits, in full, dashes and spaces allowed) that no key matches is looked for by a Scan of the table (every item read once).</p>
<h2>Latest messages</h2>
<form class="filter" method="get" action="${CONSOLE_PATH}">
  <label>status <select name="status"><option value="">any</option>${LISTED_STATUSES.map((name) => html`<option${status === name ? raw(' selected') : ''}>${name}</option>`)}</select></label>
  ${onStack && scan ? hidden({ scan: '1' }) : ''}<button type="submit">Filter</button></form>
${scan ? await latestList(status, query.after) : html`<p class="notice">On a stack the list comes from a Scan of the event table: every item read once, billed per read, for each page of the list (the table has no index by time). <a href="${`${CONSOLE_PATH}?${new URLSearchParams({ ...(status ? { status } : {}), scan: '1' })}`}">List the latest messages</a>.</p>`}`,
    );
  };

  /** A link to the list with these choices. */
  const listLink = (choices: { status?: ListedStatus | undefined; after?: string }): string =>
    `${CONSOLE_PATH}?${new URLSearchParams({
      ...(choices.status ? { status: choices.status } : {}),
      ...(choices.after ? { after: choices.after } : {}),
      ...(onStack ? { scan: '1' } : {}),
    })}`;

  const KIND_NAMES: Readonly<Record<ListedMessage['kind'], string>> = {
    cliKey: 'sent',
    msgKey: 'sent (msgKey)',
    moKey: 'inbound',
    sqsMessageId: 'queue message',
  };

  const latestList = async (
    status: ListedStatus | undefined,
    after: string | undefined,
  ): Promise<SafeHtml> => {
    const found = await latestMessages(target.documents, target.tables.events);
    let shown: ReturnType<typeof pageOf>;
    try {
      shown = pageOf(found.rows, {
        size: PAGE_SIZE,
        ...(status ? { status } : {}),
        ...(after ? { cursor: after } : {}),
      });
    } catch (error) {
      if (error instanceof BadCursorError) throw new BadRequest(`after: ${error.message}`);
      throw error;
    }
    const read = `${found.scanned} message items read${found.complete ? '' : ', stopped before the end of the table: the list is of those items only'}`;
    return html`<p class="muted" id="latest-summary">${found.rows.length} ${found.rows.length === 1 ? 'message' : 'messages'} in the table, newest first by their latest event${status ? html`; ${shown.rows.length === 0 && after === undefined ? 'none' : 'those'} with status <strong>${status}</strong>` : ''} (${read}).</p>
${
  shown.rows.length === 0
    ? html`<p class="muted" id="no-latest">No message${status ? html` with status ${status}` : ''}${after ? ' older than these' : ''}.</p>`
    : html`<div class="scroll"><table class="messages" id="latest"><thead><tr><th>time</th><th>key</th><th>channel</th><th>status</th><th>latest event</th></tr></thead><tbody>
${shown.rows.map(
  (row) =>
    html`<tr data-status="${row.status}" data-kind="${row.kind}"><td class="time">${fmt(row.at)}</td><td class="key"><span class="muted">${KIND_NAMES[row.kind]}</span> ${keyLink(row.key, 'key', row.key)}${row.msgKey && row.kind === 'cliKey' ? html`<div class="muted">msgKey <code>${row.msgKey}</code></div>` : ''}</td><td>${row.channel ?? ''}</td><td>${statusBadge(row.status)}</td><td>${row.latest ?? ''}</td></tr>`,
)}</tbody></table></div>`
}
<nav class="pages" aria-label="pages">${after ? html`<a href="${listLink({ status })}" id="newest">Newest</a>` : ''}${shown.next ? html`<a href="${listLink({ status, after: shown.next })}" id="older" rel="next">Older</a>` : ''}</nav>`;
  };

  const keyLink = (key: string, by: 'key' | 'phone', text: string) =>
    html`<a href="${`${CONSOLE_PATH}/message?by=${by}&q=${encodeURIComponent(key)}`}">${text}</a>`;

  const statusBadge = (status: ListedStatus): SafeHtml =>
    html`<span class="status status-${status}">${status}</span>`;

  const message = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(MessageQuery, params);
    const q = query.q ?? '';
    if (q === '') return home();
    const digits = phoneDigits(q);
    if (query.by === 'phone') return phonePage(q, digits);
    // Unsaid, a number that could be a phone is read as a key first (a Query), and searched as a
    // phone number only when no key matches (a Scan).
    const phoneToo = query.by === undefined && digits !== undefined;
    const key = KEY.safeParse(q);
    if (!key.success) {
      if (phoneToo) return phonePage(q, digits);
      throw new BadRequest(`q: ${key.error.issues[0]?.message ?? 'not a key'}`);
    }
    const scan = query.scan === '1';
    const trace = await traceKey(target.documents, target.tables.events, key.data, { scan });
    if (trace.entries.length > 0)
      return timelinePage(
        trace,
        searchForm(q),
        phoneToo
          ? html`<p class="muted">Found as a key. ${keyLink(q, 'phone', 'Search it as a phone number instead')}.</p>`
          : undefined,
      );
    if (phoneToo) return phonePage(q, digits);
    return page(
      'Message',
      csrf,
      target,
      html`${searchForm(q)}<p class="empty">Nothing stored for <code>${key.data}</code>.${
        scan
          ? ''
          : html` <a href="${`${CONSOLE_PATH}/message?by=key&q=${encodeURIComponent(key.data)}&scan=1`}">Scan the table</a> for quarantined bodies and send records that name it.`
      }</p>`,
    );
  };

  /** The messages that name a phone number: one opens as its timeline, several as a list. */
  const phonePage = async (q: string, digits: string | undefined): Promise<Answer> => {
    if (digits === undefined)
      throw new BadRequest('q: a phone number is 8 to 12 digits, entered in full');
    const found = await findByPhone(target.documents, target.tables.events, digits);
    if (found.matches.length === 1 && found.matches[0] !== undefined) {
      const trace = await traceKey(target.documents, target.tables.events, found.matches[0].key, {
        mask: revealingMask(digits),
      });
      return timelinePage(
        trace,
        searchForm(q),
        html`<p>Phone <code>${digits}</code>: one message.</p>`,
      );
    }
    return page(
      `Phone ${digits}`,
      csrf,
      target,
      html`${searchForm(q)}
<p>${found.matches.length} ${found.matches.length === 1 ? 'message names' : 'messages name'} <code>${digits}</code> (${found.scanned} items read${found.complete ? '' : ', stopped before the end of the table'}).</p>
<div class="scroll"><table class="matches"><thead><tr><th>time</th><th>found by</th><th>key</th><th>latest event</th></tr></thead><tbody>
${found.matches.map(
  (m) =>
    html`<tr><td>${fmt(m.at)}</td><td>${m.kind}</td><td>${keyLink(m.key, 'key', m.key)}</td><td>${m.type ?? ''}</td></tr>`,
)}</tbody></table></div>`,
    );
  };

  /**
   * The message's text, masked as the timeline is: an inbound message's as it came; a sent
   * message's is not kept (its send record holds a fingerprint of it), and the page says so.
   */
  const textOf = (trace: Trace): SafeHtml => {
    const mo = trace.entries.find((entry) => entry.sk === SORT_KEY.mo);
    if (mo !== undefined) {
      const data = (mo.data ?? {}) as Record<string, unknown>;
      const title = typeof data.title === 'string' && data.title !== '' ? data.title : undefined;
      const text = typeof data.text === 'string' ? data.text : undefined;
      return html`<section class="message-text"><h2>Text</h2>${title ? html`<p class="title" id="message-title">${title}</p>` : ''}${text === undefined ? html`<p class="muted">No text (an attachment only).</p>` : html`<p class="text" id="message-text">${text}</p>`}</section>`;
    }
    return trace.cliKey === undefined
      ? html``
      : html`<section class="message-text"><h2>Text</h2><p class="muted" id="message-text">msgbridge keeps no copy of a sent message’s text: the send record holds a fingerprint of its content only (the producer has the text).</p></section>`;
  };

  const timelinePage = async (trace: Trace, form: SafeHtml, intro?: SafeHtml): Promise<Answer> => {
    const ids = new Set(trace.entries.flatMap((entry) => (entry.eventId ? [entry.eventId] : [])));
    const log = eventLog === undefined ? undefined : await eventLog.find(ids);
    const timeline = timelineOf(trace, log);
    return page(
      `Message ${trace.cliKey ?? trace.moKey ?? trace.msgKey ?? trace.key}`,
      csrf,
      target,
      html`${form}${intro ?? ''}${textOf(trace)}${renderTimeline(trace, timeline, { onStack, hasLog: log !== undefined })}`,
      ['console.js'],
    );
  };

  return { home, message };
};
