import { findByPhone, phoneDigits, revealingMask } from '../../ops/phone-search.ts';
import { type Trace, traceKey } from '../../ops/trace.ts';
import type { ConsoleContext } from '../context.ts';
import { html, raw, type SafeHtml } from '../html.ts';
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
  const searchForm = (
    q = '',
    by: 'key' | 'phone' = 'key',
  ) => html`<form class="search" method="get" action="${CONSOLE_PATH}/message">
  <label>Find <select name="by"><option value="key"${by === 'key' ? raw(' selected') : ''}>cliKey, msgKey or moKey</option><option value="phone"${by === 'phone' ? raw(' selected') : ''}>phone number (in full)</option></select></label>
  <input name="q" value="${q}" required maxlength="120" autofocus placeholder="cliKey, msgKey, moKey or 010…">
  <button type="submit">Search</button></form>`;

  const home = (): Answer =>
    page(
      'Message',
      csrf,
      target,
      html`${searchForm()}<p class="muted">A key is read from the event table by DynamoDB Query; a phone number needs a Scan of the table (every item read once).</p>`,
    );

  const message = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(MessageQuery, params);
    const q = query.q ?? '';
    if (q === '') return home();
    const by = query.by ?? 'key';
    if (by === 'phone') {
      const digits = phoneDigits(q);
      if (digits === undefined)
        throw new BadRequest('q: a phone number is 8 to 12 digits, entered in full');
      const found = await findByPhone(target.documents, target.tables.events, digits);
      if (found.matches.length === 1 && found.matches[0] !== undefined) {
        const match = found.matches[0];
        const trace = await traceKey(target.documents, target.tables.events, match.key, {
          mask: revealingMask(digits),
        });
        return timelinePage(
          trace,
          searchForm(q, 'phone'),
          html`<p>Phone <code>${digits}</code>: one message.</p>`,
        );
      }
      return page(
        `Phone ${digits}`,
        csrf,
        target,
        html`${searchForm(q, 'phone')}
<p>${found.matches.length} ${found.matches.length === 1 ? 'message names' : 'messages name'} <code>${digits}</code> (${found.scanned} items read${found.complete ? '' : ', stopped before the end of the table'}).</p>
<table class="matches"><thead><tr><th>time</th><th>found by</th><th>key</th><th>latest event</th></tr></thead><tbody>
${found.matches.map(
  (m) =>
    html`<tr><td>${fmt(m.at)}</td><td>${m.kind}</td><td><a href="${`${CONSOLE_PATH}/message?by=key&q=${encodeURIComponent(m.key)}`}">${m.key}</a></td><td>${m.type ?? ''}</td></tr>`,
)}</tbody></table>`,
      );
    }
    const key = KEY.safeParse(q);
    if (!key.success) throw new BadRequest(`q: ${key.error.issues[0]?.message ?? 'not a key'}`);
    const scan = query.scan === '1';
    const trace = await traceKey(target.documents, target.tables.events, key.data, { scan });
    if (trace.entries.length === 0) {
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
    }
    return timelinePage(trace, searchForm(q));
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
