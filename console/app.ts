import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../ops/errors.ts';
import { queueDepth, replayWindow, republishPorts } from '../ops/operations.ts';
import { findByPhone, phoneDigits, revealingMask } from '../ops/phone-search.ts';
import { listQuarantined } from '../ops/quarantine.ts';
import { redriveDlq } from '../ops/redrive.ts';
import { localEventsInRange } from '../ops/replay.ts';
import { planRepublish, runRepublish } from '../ops/republish.ts';
import type { Target } from '../ops/target.ts';
import { type Trace, traceKey } from '../ops/trace.ts';
import { type ActionKind, type Job, Jobs } from './actions.ts';
import { eventLogReader, type PublishedEvent } from './event-log.ts';
import { EVENT_TYPES } from './event-types.ts';
import { codeOf, flowSeries, storedEvents } from './flow.ts';
import { html, raw, type SafeHtml } from './html.ts';
import {
  type Answer,
  ASSETS,
  BadRequest,
  CONSOLE_PATH,
  errorPage,
  FlowQuery,
  fmt,
  hidden,
  json,
  KEY,
  LOOPBACK_HOST,
  MessageQuery,
  page,
  parseQuery,
  RedriveForm,
  ReplayForm,
  RepublishForm,
  readForm,
  redirect,
  SECURITY_HEADERS,
  sameToken,
} from './http.ts';
import { renderTimeline, timelineOf } from './timeline.ts';

/*
 * The operator console: server-rendered pages over the same functions the `msgbridge` commands
 * call on a Target (the local run or a deployed stack). Every query parameter is validated, every
 * value escaped; POSTs carry the process's CSRF token; phone numbers are masked unless the
 * operator searched for that number; no secret of the target ever reaches a page.
 */

export { CONSOLE_PATH };

export interface ConsoleOptions {
  readonly target: Target;
  /** The gateway's TPS quota, for the quota chart. */
  readonly tpsQuota?: number;
  readonly now?: () => Date;
  /** How a replay on a stack waits between polls. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface Console {
  /** Answers a request whose path starts with /console. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export const createConsole = (options: ConsoleOptions): Console => {
  const { target } = options;
  // The local run's events file, read incrementally and never whole (event-log.ts); only a
  // replay the operator confirms reads it once, for the window's events.
  const eventLog = eventLogReader(target);
  const read = (path: string) => readFile(path, 'utf8');
  const now = options.now ?? (() => new Date());
  const csrf = randomBytes(32).toString('base64url');
  const jobs = new Jobs();
  const onStack = target.kind === 'stack';

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
    ? html`<section id="charts" data-series="${`${CONSOLE_PATH}/flow/series.json${onStack ? '?scan=1' : ''}`}"><p class="muted">Per minute, the last hour.</p></section>`
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

  const quarantine = async (): Promise<Answer> => {
    const [items, dlq, plan] = await Promise.all([
      listQuarantined(target.documents, target.tables.events, { limit: 200 }),
      queueDepth(target, target.queues.dlq).catch(() => undefined),
      planFailures(),
    ]);
    const onFailure =
      target.events.kind === 'stack' && target.events.onFailureQueueUrl
        ? await queueDepth(target, target.events.onFailureQueueUrl).catch(() => undefined)
        : undefined;
    const hour = new Date(now().getTime() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const end = now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    return page(
      'Quarantine & failures',
      csrf,
      target,
      html`<section class="depths"><h2>Queues</h2><table><tbody>
<tr><th>send DLQ</th><td id="dlq-depth">${dlq ?? 'unknown'}</td><td>
<form method="post" action="${CONSOLE_PATH}/actions/redrive">${hidden({ csrf })}<button type="submit">Redrive…</button></form></td></tr>
${target.events.kind === 'stack' ? html`<tr><th>publisher on-failure queue</th><td>${onFailure ?? 'unknown'}</td><td></td></tr>` : ''}
</tbody></table></section>
<section><h2>Events not published</h2>
${
  'error' in plan
    ? html`<p class="warn">${plan.error}</p>`
    : html`<p id="unpublished">${plan.items} ${plan.items === 1 ? 'event' : 'events'} to publish from the event table, ${plan.batches} failed stream ${plan.batches === 1 ? 'batch' : 'batches'}${plan.unavailable.length > 0 ? `, ${plan.unavailable.length} no longer readable` : ''}.</p>
${plan.unavailable.length > 0 ? html`<ul>${plan.unavailable.map((line) => html`<li>${line}</li>`)}</ul>` : ''}
${plan.keys.length > 0 ? html`<ul class="keys">${plan.keys.map((line) => html`<li><code>${line}</code></li>`)}</ul>` : ''}
<form method="post" action="${CONSOLE_PATH}/actions/republish">${hidden({ csrf })}<button type="submit">Republish…</button></form>`
}</section>
<section><h2>Replay a time window</h2>
<form class="replay" method="post" action="${CONSOLE_PATH}/actions/replay">${hidden({ csrf })}
<label>from <input name="from" value="${hour}" required size="24"></label>
<label>to <input name="to" value="${end}" required size="24"></label>
<button type="submit">Replay…</button></form>
<p class="muted">${onStack ? 'From the stack’s archive into its bus (EventBridge StartReplay).' : 'From the local events file into the running bridge’s bus.'} Replayed events carry <code>replay-name</code>.</p></section>
<section><h2>Quarantined items (${items.length})</h2>
${
  items.length === 0
    ? html`<p class="muted" id="no-quarantine">Nothing quarantined.</p>`
    : html`<table class="quarantine" id="quarantine"><thead><tr><th>time</th><th>kind</th><th>source</th><th>reason</th><th>raw body</th></tr></thead><tbody>
${items.map(
  (item) =>
    html`<tr><td>${fmt(item.at)}</td><td>${item.kind}</td><td>${item.source ?? ''}</td><td class="reason">${item.reason ?? ''}</td><td><pre class="raw">${item.raw}</pre>${item.truncated ? html`<span class="muted">truncated; whole body at ${JSON.stringify(item.payloadRef ?? null)}</span>` : ''}<div class="item">${item.pk}</div></td></tr>`,
)}</tbody></table>`
}</section>
${recentJobs()}`,
    );
  };

  const recentJobs = (): SafeHtml => {
    const list = jobs.list();
    return list.length === 0
      ? html``
      : html`<section><h2>Actions started here</h2><ul>${list.map((job) => html`<li><a href="${`${CONSOLE_PATH}/actions/${job.id}`}">${job.label}</a>: ${job.state}</li>`)}</ul></section>`;
  };

  const planFailures = async (): Promise<
    { items: number; batches: number; unavailable: string[]; keys: string[] } | { error: string }
  > => {
    let ports: ReturnType<typeof republishPorts>;
    try {
      ports = republishPorts(target);
    } catch (error) {
      return { error: describeError(error).join(' ') };
    }
    try {
      const plan = await planRepublish(ports);
      return {
        items: plan.items.length,
        batches: plan.batches.length,
        unavailable: plan.unavailable.map((batch) => `${batch.description}: ${batch.unavailable}`),
        keys: plan.items
          .slice(0, 50)
          .map((item) => `${item.key.pk} ${item.key.sk}${item.reason ? `: ${item.reason}` : ''}`),
      };
    } catch (error) {
      return { error: describeError(error).join(' ') };
    } finally {
      await ports.release();
    }
  };

  const confirmPage = (
    action: ActionKind,
    question: SafeHtml,
    fields: Readonly<Record<string, string>>,
  ): Answer =>
    page(
      'Confirm',
      csrf,
      target,
      html`<section class="confirm" id="confirm"><p>${question}</p>
<form method="post" action="${`${CONSOLE_PATH}/actions/${action}`}">${hidden({ ...fields, csrf, confirm: 'yes' })}<button type="submit" class="danger">Yes, ${action}</button>
<a href="${CONSOLE_PATH}/quarantine">Cancel</a></form></section>`,
    );

  const startAction = async (action: string, form: URLSearchParams): Promise<Answer> => {
    if (!sameToken(form.get('csrf') ?? '', csrf))
      return errorPage(
        403,
        'The form has expired or did not come from this console; reload the page.',
      );
    if (action === 'replay') {
      const fields = parseQuery(ReplayForm, form);
      const from = new Date(fields.from);
      const to = new Date(fields.to);
      if (to.getTime() <= from.getTime()) throw new BadRequest('to must be after from');
      if (fields.confirm !== 'yes') {
        const count =
          target.events.kind === 'local'
            ? localEventsInRange(await read(target.events.file).catch(() => ''), from, to).length
            : undefined;
        return confirmPage(
          'replay',
          html`Replay ${count === undefined ? 'the archived events' : html`<strong id="replay-count">${count}</strong> events`} published from ${fields.from} to ${fields.to} on the ${target.describe()}? Subscribers see each again, with <code>replay-name</code>.`,
          { from: fields.from, to: fields.to },
        );
      }
      const name = `msgbridge-console-${now().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}`;
      const job = jobs.start(
        'replay',
        `replay ${name} (${fields.from} – ${fields.to})`,
        async (progress) => {
          const result = await replayWindow(target, {
            name,
            from,
            to,
            readFile: read,
            ...(options.sleep ? { sleep: options.sleep } : {}),
            onTotal: (total) => progress.total(total),
            onProgress: (done) => progress.update(done),
          });
          return result.replayed === undefined
            ? `replay ${result.name}: ${result.state}`
            : `replay ${result.name}: ${result.replayed} events put on the bus again`;
        },
      );
      return redirect(`${CONSOLE_PATH}/actions/${job.id}`);
    }
    if (action === 'redrive') {
      const fields = parseQuery(RedriveForm, form);
      const max =
        fields.max === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(fields.max));
      const waiting = await queueDepth(target, target.queues.dlq);
      if (fields.confirm !== 'yes') {
        return confirmPage(
          'redrive',
          html`Move <strong>${waiting ?? 'all'}</strong> ${waiting === 1 ? 'message' : 'messages'} from the send DLQ back to the send queue of the ${target.describe()}? The sender dedupes on cliKey.`,
          fields.max === undefined ? {} : { max: fields.max },
        );
      }
      const job = jobs.start('redrive', 'redrive the send DLQ', async (progress) => {
        if (waiting !== undefined) progress.total(Math.min(waiting, max));
        const result = await redriveDlq({
          sqs: target.sqs,
          dlqUrl: target.queues.dlq,
          queueUrl: target.queues.send,
          max,
          onProgress: (moved) => progress.update(moved),
        });
        const problems = result.notSent.length + result.notDeleted.length;
        if (problems > 0)
          throw new Error(
            `moved ${result.moved}; ${result.notSent.length} not sent (still in the DLQ), ${result.notDeleted.length} sent but not deleted`,
          );
        return `moved ${result.moved} ${result.moved === 1 ? 'message' : 'messages'} to the send queue`;
      });
      return redirect(`${CONSOLE_PATH}/actions/${job.id}`);
    }
    if (action === 'republish') {
      const fields = parseQuery(RepublishForm, form);
      if (fields.confirm !== 'yes') {
        const plan = await planFailures();
        if ('error' in plan) throw new BadRequest(plan.error);
        return confirmPage(
          'republish',
          html`Publish <strong>${plan.items}</strong> events from the event table on the ${target.describe()} and remove ${plan.batches} failed stream batches once they are on the bus?`,
          {},
        );
      }
      const job = jobs.start(
        'republish',
        'republish the events not published',
        async (progress) => {
          const ports = republishPorts(target);
          try {
            const plan = await planRepublish(ports);
            progress.total(plan.items.length);
            const result = await runRepublish(plan, ports, (done) => progress.update(done));
            if (result.failed.length > 0 || result.unavailable.length > 0) {
              throw new Error(
                `published ${result.published}; ${result.failed.length} not published, ${result.unavailable.length} failed batches not readable`,
              );
            }
            return `published ${result.published} events; ${result.alreadyPublished} already on the bus; ${result.settled} failed batches removed`;
          } finally {
            await ports.release();
          }
        },
      );
      return redirect(`${CONSOLE_PATH}/actions/${job.id}`);
    }
    return errorPage(404, 'No such action.');
  };

  const jobJson = (job: Job) => ({
    id: job.id,
    kind: job.kind,
    label: job.label,
    state: job.state,
    done: job.done,
    total: job.total ?? null,
    message: job.message ?? null,
    startedAt: job.startedAt,
    endedAt: job.endedAt ?? null,
  });

  const jobPage = (job: Job): Answer =>
    page(
      job.label,
      csrf,
      target,
      html`<section class="job" id="job" data-poll="${`${CONSOLE_PATH}/actions/${job.id}.json`}" data-state="${job.state}">
<progress id="job-progress" max="${job.total ?? 1}" value="${job.total === undefined ? 0 : job.done}"></progress>
<p><span id="job-state">${job.state}</span>: <span id="job-done">${job.done}</span> of <span id="job-total">${job.total ?? '?'}</span></p>
<p id="job-message">${job.message ?? ''}</p>
<p><a href="${CONSOLE_PATH}/quarantine">Back to quarantine &amp; failures</a></p></section>`,
      ['console.js'],
    );

  const route = async (request: IncomingMessage, url: URL): Promise<Answer> => {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = request.method ?? 'GET';
    if (path.startsWith(`${CONSOLE_PATH}/assets/`)) {
      const asset = ASSETS[path.slice(`${CONSOLE_PATH}/assets/`.length)];
      if (asset === undefined) return errorPage(404, 'No such file.');
      return {
        status: 200,
        type: asset.type,
        body: await readFile(asset.file),
        headers: { 'cache-control': 'max-age=300' },
      };
    }
    if (method === 'POST') {
      const action = /^\/console\/actions\/(replay|redrive|republish)$/.exec(path)?.[1];
      if (action === undefined) return errorPage(404, 'No such action.');
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== `http://${request.headers.host}`)
        return errorPage(403, 'Cross-origin form.');
      return startAction(action, await readForm(request));
    }
    if (method !== 'GET' && method !== 'HEAD') return errorPage(405, 'Method not allowed.');
    if (path === CONSOLE_PATH) {
      if ([...url.searchParams.keys()].length > 0)
        throw new BadRequest('the console page takes no query');
      return home();
    }
    if (path === `${CONSOLE_PATH}/message`) return message(url.searchParams);
    if (path === `${CONSOLE_PATH}/flow`) return flow(url.searchParams);
    if (path === `${CONSOLE_PATH}/flow/events.json`) return flowEventsJson(url.searchParams);
    if (path === `${CONSOLE_PATH}/flow/series.json`) return seriesJson(url.searchParams);
    if (path === `${CONSOLE_PATH}/quarantine`) {
      if ([...url.searchParams.keys()].length > 0)
        throw new BadRequest('the quarantine page takes no query');
      return quarantine();
    }
    const job = /^\/console\/actions\/([0-9a-f-]{36})(\.json)?$/.exec(path);
    if (job?.[1] !== undefined) {
      const found = jobs.get(job[1]);
      if (found === undefined)
        return errorPage(404, 'No such action (actions are kept while this console runs).');
      return job[2] ? json(jobJson(found)) : jobPage(found);
    }
    return errorPage(404, 'No such page.');
  };

  return {
    handle: async (request, response) => {
      let answer: Answer;
      try {
        if (!LOOPBACK_HOST.test(request.headers.host ?? '')) {
          answer = errorPage(
            403,
            'The console answers only requests addressed to 127.0.0.1 or localhost.',
          );
        } else {
          answer = await route(request, new URL(request.url ?? '/', 'http://console.local'));
        }
      } catch (error) {
        answer =
          error instanceof BadRequest
            ? errorPage(400, error.message)
            : errorPage(500, `The target did not answer: ${describeError(error).join(' ')}`);
      }
      if (response.headersSent || response.destroyed) return;
      response.writeHead(answer.status, {
        ...SECURITY_HEADERS,
        'content-type': answer.type,
        ...answer.headers,
      });
      response.end(request.method === 'HEAD' ? undefined : answer.body);
    },
  };
};
