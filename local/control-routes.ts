/**
 * The local run's control routes (`/_bridge/…`) on its webhook server (local/webhook-server.ts),
 * for the CLI on the same machine: `GET /_bridge/status` and `POST /_bridge/replay`, answered only
 * to a loopback caller, addressed to a loopback host, carrying the run's token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { json, NOT_FOUND } from '../functions/webhooks/handler.ts';
import { describeError } from './thrown.ts';

/** What the control routes serve, and the token they require. */
export interface ControlRouteOptions {
  /**
   * `POST /_bridge/replay`: the local run's stand-in for an archive replay (`msgbridge events
   * replay`). Answered only to loopback callers.
   */
  readonly replay?: (body: unknown) => Promise<{ statusCode: number; body: unknown }>;
  /**
   * `GET /_bridge/status`: the state of the deployment's event source mappings and schedules
   * (`msgbridge doctor --local`). Answered only to loopback callers.
   */
  readonly status?: () => unknown;
  /**
   * The per-run token every control route (`/_bridge/…`) requires, as `Authorization: Bearer
   * <token>`; the local run writes it to its owner-only `bridge.json`, where the CLI reads it.
   * Without one the control routes answer nobody.
   */
  readonly controlToken?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** A Host header that names this machine: what a DNS-rebinding page cannot send. */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/;

/**
 * Why a request may not use a control route, or `undefined` when it may: from a loopback address,
 * addressed to a loopback host (a page that rebinds its own name to 127.0.0.1 still sends that
 * name), from no other web origin, carrying the run's token; and a body, if any, in JSON, which a
 * web page cannot post across origins without a preflight that this server never answers.
 */
const controlRefusal = (
  request: IncomingMessage,
  body: Buffer,
  token: string | undefined,
): APIGatewayProxyResult | undefined => {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? ''))
    return json(403, { message: 'control routes answer loopback callers only' });
  const host = request.headers.host ?? '';
  if (!LOOPBACK_HOST.test(host))
    return json(403, {
      message: 'control routes answer requests addressed to 127.0.0.1 or localhost only',
    });
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return json(403, { message: 'control routes answer no other web origin' });
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  if (token === undefined || !sameToken(given, token))
    return json(401, { message: "control routes need the run's token (bridge.json controlToken)" });
  if (body.length > 0 && !/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
    return json(415, { message: 'control routes take application/json only' });
  return undefined;
};

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** What the control route at `path` (`/_bridge/…`) answers, or why the request may not use it. */
export const answerControlRoute = async (
  request: IncomingMessage,
  path: string,
  body: Buffer,
  options: ControlRouteOptions,
): Promise<APIGatewayProxyResult> => {
  const refusal = controlRefusal(request, body, options.controlToken);
  if (refusal !== undefined) return refusal;
  if (path === '/_bridge/status' && options.status) {
    if (request.method !== 'GET') return json(405, { message: 'Method Not Allowed' });
    return json(200, options.status());
  }
  const route = path === '/_bridge/replay' ? options.replay : undefined;
  if (route === undefined) return NOT_FOUND;
  if (request.method !== 'POST') return json(405, { message: 'Method Not Allowed' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return json(400, { message: 'the body is not JSON' });
  }
  try {
    const result = await route(parsed);
    return json(result.statusCode, result.body);
  } catch (error) {
    console.error(`${path} failed`, describeError(error));
    return json(500, { message: `${path} failed` });
  }
};
