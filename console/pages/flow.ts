import type { ConsoleContext } from '../context.ts';
import type { PublishedEvent } from '../event-log.ts';
import { EVENT_TYPES } from '../event-types.ts';
import { codeOf, flowSeries, storedEvents } from '../flow.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import {
  type Answer,
  BadRequest,
  CONSOLE_PATH,
  FlowQuery,
  fmt,
  hidden,
  json,
  page,
  parseQuery,
} from '../http.ts';

/** The flow page: the latest events and the per-minute charts, with their JSON feeds. */
export const flowPages = (context: ConsoleContext) => {
  const { target, csrf, eventLog, now, onStack, options } = context;
  const filterEvents = (
    events: readonly PublishedEvent[],
    type: string | undefined,
    code: string | undefined,
  ) =>
    events.filter(
      (event) => (!type || event.detailType === type) && (!code || codeOf(event) === code),
    );

  const eventRow = (event: PublishedEvent): SafeHtml =>
    html`<tr data-line="${event.line}" data-detail-type="${event.detailType}"><td>${fmt(event.time)}</td><td>${event.detailType}${event.replayName ? html` <span class="muted">(replay ${event.replayName})</span>` : ''}</td><td>${codeOf(event) ?? ''}</td><td>${[
      'cliKey',
      'msgKey',
      'moKey',
    ].flatMap((name) => {
      const value = event.data[name];
      return typeof value === 'string'
        ? [
            html`<a href="${`${CONSOLE_PATH}/message?by=key&q=${encodeURIComponent(value)}`}">${value}</a> `,
          ]
        : [];
    })}</td><td><code>${event.id ?? ''}</code></td></tr>`;

  const flowEvents = async (scan: boolean): Promise<readonly PublishedEvent[] | undefined> => {
    if (eventLog !== undefined) return (await eventLog.refresh()).recent;
    if (!scan) return undefined;
    return storedEvents(target, new Date(now().getTime() - 3_600_000).toISOString(), 500);
  };

  const flow = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(FlowQuery, params);
    const scan = !onStack || query.scan === '1';
    const events = await flowEvents(scan);
    const shown =
      events === undefined
        ? []
        : filterEvents(events, query.type || undefined, query.code || undefined)
            .slice(-100)
            .reverse();
    const last = events?.at(-1)?.line ?? 0;
    return page(
      'Flow',
      csrf,
      target,
      html`<form class="filter" method="get" action="${CONSOLE_PATH}/flow">
  <label>detail-type <select name="type"><option value="">any</option>${EVENT_TYPES.map((type) => html`<option${query.type === type ? raw(' selected') : ''}>${type}</option>`)}</select></label>
  <label>code <input name="code" value="${query.code ?? ''}" maxlength="40" placeholder="10000"></label>
  ${onStack && scan ? hidden({ scan: '1' }) : ''}
  <button type="submit">Filter</button></form>
${
  scan
    ? html`<section id="charts" data-series="${`${CONSOLE_PATH}/flow/series.json${onStack ? '?scan=1' : ''}`}"><p class="muted">Per minute, the last hour; times in KST.</p></section>`
    : html`<p class="notice">On a stack the charts and the events come from a Scan of the event table (every item read once, billed per read).
<a href="${`${CONSOLE_PATH}/flow?scan=1`}">Scan now</a>. The bus keeps no log the console can read without adding a rule to the stack.</p>`
}
<h2>Events ${onStack ? 'stored in the last hour' : 'as they are published'}</h2>
<table class="events" id="flow-events" data-after="${last}" data-live="${onStack ? '' : `${CONSOLE_PATH}/flow/events.json`}" data-type="${query.type ?? ''}" data-code="${query.code ?? ''}">
<thead><tr><th>time</th><th>detail-type</th><th>code</th><th>keys</th><th>event id</th></tr></thead>
<tbody>${shown.map(eventRow)}</tbody></table>`,
      ['uplot.js', 'console.js'],
    );
  };

  const flowEventsJson = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(FlowQuery, params);
    const log = eventLog === undefined ? [] : (await eventLog.refresh()).recent;
    const after = Number(query.after ?? 0);
    const events = filterEvents(
      log.filter((event) => event.line > after),
      query.type || undefined,
      query.code || undefined,
    ).slice(-200);
    return json({
      last: log.at(-1)?.line ?? after,
      events: events.map((event) => ({
        line: event.line,
        time: event.time,
        detailType: event.detailType,
        replayName: event.replayName ?? null,
        code: codeOf(event) ?? null,
        keys: Object.fromEntries(
          ['cliKey', 'msgKey', 'moKey'].flatMap((name) =>
            typeof event.data[name] === 'string' ? [[name, event.data[name]]] : [],
          ),
        ),
        id: event.id ?? null,
      })),
    });
  };

  const seriesJson = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(FlowQuery, params);
    if (onStack && query.scan !== '1')
      throw new BadRequest('on a stack the series need scan=1 (a Scan of the event table)');
    return json(
      await flowSeries(target, {
        now: now().getTime(),
        minutes: 60,
        ...(options.tpsQuota === undefined ? {} : { tpsQuota: options.tpsQuota }),
      }),
    );
  };

  return { flow, flowEventsJson, seriesJson };
};
