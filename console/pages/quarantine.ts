import { queueDepth } from '../../ops/operations.ts';
import { listQuarantined } from '../../ops/quarantine.ts';
import { formatKst } from '../../protocol/kst.ts';
import type { ConsoleContext } from '../context.ts';
import { html } from '../html.ts';
import { type Answer, CONSOLE_PATH, fmt, hidden, page } from '../http.ts';
import type { actionPages } from './actions.ts';

/** The quarantine page: quarantined bodies, the send DLQ, publish failures, and the action forms. */
export const quarantinePage = (
  context: ConsoleContext,
  actions: Pick<ReturnType<typeof actionPages>, 'recentJobs' | 'planFailures'>,
) => {
  const { target, csrf, now, onStack } = context;
  const { recentJobs, planFailures } = actions;
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
    // The window's ends in KST, the zone every time of the console is shown in.
    const kst = (ms: number) => `${formatKst(ms, 'YYYY-MM-DD HH:mm:ss').replace(' ', 'T')}+09:00`;
    const hour = kst(now().getTime() - 3_600_000);
    const end = kst(now().getTime());
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
    : html`<div class="scroll"><table class="quarantine" id="quarantine"><thead><tr><th>time</th><th>kind</th><th>source</th><th>reason</th><th>raw body</th></tr></thead><tbody>
${items.map(
  (item) =>
    html`<tr><td>${fmt(item.at)}</td><td>${item.kind}</td><td>${item.source ?? ''}</td><td class="reason">${item.reason ?? ''}</td><td><pre class="raw">${item.raw}</pre>${item.truncated ? html`<span class="muted">truncated; whole body at ${JSON.stringify(item.payloadRef ?? null)}</span>` : ''}</td></tr>`,
)}</tbody></table></div>`
}</section>
${recentJobs()}`,
    );
  };

  return { quarantine };
};
