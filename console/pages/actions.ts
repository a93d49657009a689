import { describeError } from '../../ops/errors.ts';
import { queueDepth, redriveSendDlq, replayWindow, republishPorts } from '../../ops/operations.ts';
import { localEventsInRange } from '../../ops/replay.ts';
import { planRepublish, runRepublish } from '../../ops/republish.ts';
import type { ActionKind, Job } from '../actions.ts';
import type { ConsoleContext } from '../context.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  type Answer,
  BadRequest,
  CONSOLE_PATH,
  errorPage,
  hidden,
  page,
  parseQuery,
  RedriveForm,
  ReplayForm,
  RepublishForm,
  redirect,
  sameToken,
} from '../http.ts';

/** The actions (replay, redrive, republish): confirmation, the jobs that run them, and their pages. */
export const actionPages = (context: ConsoleContext) => {
  const { target, csrf, jobs, read, now, options } = context;
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
      const name = `msgbridge-console-${now().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}Z`;
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
        const result = await redriveSendDlq(target, max, (moved) => progress.update(moved));
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

  return { recentJobs, planFailures, startAction, jobJson, jobPage };
};
