import type { ConsoleContext } from '../context.ts';
import type { PublishedEvent } from '../event-log.ts';
import { EVENT_TYPES } from '../event-types.ts';
import { codeOf, type FlowWindow, flowSeries, storedEvents, windowMs } from '../flow.ts';
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

  const flowEvents = async (
    scan: boolean,
    window: FlowWindow,
  ): Promise<readonly PublishedEvent[] | undefined> => {
    if (eventLog !== undefined) return (await eventLog.refresh()).recent;
    if (!scan) return undefined;
    return storedEvents(target, new Date(now().getTime() - windowMs(window)).toISOString(), 500);
  };

  /** A link to the flow over `window`, keeping the page's other choices. */
  const windowLink = (
    window: FlowWindow,
    query: { type?: string; code?: string },
    current: FlowWindow,
    scan: boolean,
  ) => {
    const params = new URLSearchParams({
      ...(query.type ? { type: query.type } : {}),
      ...(query.code ? { code: query.code } : {}),
      ...(onStack && scan ? { scan: '1' } : {}),
      window,
    });
    return html`<a href="${`${CONSOLE_PATH}/flow?${params}`}"${window === current ? raw(' aria-current="page"') : ''}>${window === 'hour' ? 'Last hour' : 'Last day'}</a>`;
  };

  const flow = async (params: URLSearchParams): Promise<Answer> => {
    const query = parseQuery(FlowQuery, params);
    const scan = !onStack || query.scan === '1';
    const window = query.window ?? 'hour';
    const events = await flowEvents(scan, window);
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
  ${onStack && scan ? hidden({ scan: '1' }) : ''}${hidden({ window })}
  <button type="submit">Filter</button></form>
${
  scan
    ? html`<nav class="window" aria-label="window">${windowLink('hour', query, window, scan)} ${windowLink('day', query, window, scan)}</nav>
<p class="muted">${window === 'hour' ? 'Per minute over the last hour' : 'Per quarter of an hour over the last day'}; times in KST. Each legend shows the window’s total (the busiest slot for the quota), or the slot under the pointer.</p>
<section id="charts" data-series="${`${CONSOLE_PATH}/flow/series.json?${new URLSearchParams({ ...(onStack ? { scan: '1' } : {}), window })}`}"></section>`
    : html`<p class="notice">On a stack the charts and the events come from a Scan of the event table (every item read once, billed per read).
<a href="${`${CONSOLE_PATH}/flow?scan=1`}">Scan now</a>. The bus keeps no log the console can read without adding a rule to the stack.</p>`
}
<h2>Events ${onStack ? `stored in the last ${window}` : 'as they are published'}</h2>
<div class="scroll"><table class="events" id="flow-events" data-after="${last}" data-live="${onStack ? '' : `${CONSOLE_PATH}/flow/events.json`}" data-type="${query.type ?? ''}" data-code="${query.code ?? ''}">
<thead><tr><th>time</th><th>detail-type</th><th>code</th><th>keys</th><th>event id</th></tr></thead>
<tbody>${shown.map(eventRow)}</tbody></table></div>`,
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
        window: query.window ?? 'hour',
        ...(options.tpsQuota === undefined ? {} : { tpsQuota: options.tpsQuota }),
      }),
    );
  };

  return { flow, flowEventsJson, seriesJson };
};
