import { findByPhone, phoneDigits, revealingMask } from '../../ops/phone-search.ts';
import { type Trace, traceKey } from '../../ops/trace.ts';
import type { ConsoleContext } from '../context.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  type Answer,
  BadRequest,
  CONSOLE_PATH,
  fmt,
  KEY,
  MessageQuery,
  page,
  parseQuery,
} from '../http.ts';
import { renderTimeline, timelineOf } from '../timeline.ts';

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

  const home = (): Answer =>
    page(
      'Message',
      csrf,
      target,
      html`${searchForm()}<p class="muted">A key is read from the event table by DynamoDB Query. A phone number (8 to 12 digits, in full, dashes and spaces allowed) that no key matches is looked for by a Scan of the table (every item read once).</p>`,
    );

  const keyLink = (key: string, by: 'key' | 'phone', text: string) =>
    html`<a href="${`${CONSOLE_PATH}/message?by=${by}&q=${encodeURIComponent(key)}`}">${text}</a>`;

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

  const timelinePage = async (trace: Trace, form: SafeHtml, intro?: SafeHtml): Promise<Answer> => {
    const ids = new Set(trace.entries.flatMap((entry) => (entry.eventId ? [entry.eventId] : [])));
    const log = eventLog === undefined ? undefined : await eventLog.find(ids);
    const timeline = timelineOf(trace, log);
    return page(
      `Message ${trace.cliKey ?? trace.moKey ?? trace.msgKey ?? trace.key}`,
      csrf,
      target,
      html`${form}${intro ?? ''}${renderTimeline(trace, timeline, { onStack, hasLog: log !== undefined })}`,
    );
  };

  return { home, message };
};
