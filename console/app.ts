import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../ops/errors.ts';
import type { Target } from '../ops/target.ts';
import { Jobs } from './actions.ts';
import type { ConsoleContext } from './context.ts';
import { eventLogReader } from './event-log.ts';
import {
  type Answer,
  ASSETS,
  BadRequest,
  CONSOLE_PATH,
  errorPage,
  json,
  LOOPBACK_HOST,
  readForm,
  SECURITY_HEADERS,
} from './http.ts';
import { actionPages } from './pages/actions.ts';
import { flowPages } from './pages/flow.ts';
import { messagePages } from './pages/message.ts';
import { quarantinePage } from './pages/quarantine.ts';

/*
 * The operator console: server-rendered pages over the same functions the `msgbridge` commands
 * call on a Target (the local run or a deployed stack). Every query parameter is validated, every
 * value escaped; POSTs carry the process's CSRF token; phone numbers are masked unless the
 * operator searched for that number; no secret of the target ever reaches a page.
 */

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

  const context: ConsoleContext = { target, onStack, csrf, jobs, eventLog, read, now, options };
  const { home, message } = messagePages(context);
  const { flow, flowEventsJson, seriesJson } = flowPages(context);
  const actions = actionPages(context);
  const { startAction, jobJson, jobPage } = actions;
  const { quarantine } = quarantinePage(context, actions);

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
    if (path === CONSOLE_PATH) return home(url.searchParams);
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
