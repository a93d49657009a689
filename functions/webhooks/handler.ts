import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { maskPhonesInText } from '../commons/helpers/mask.ts';
import {
  keepUnreadableBody,
  type ReceiveDeps,
  type ReceiveOutcome,
  receiveInbound,
  receiveReports,
  type WebhookKind,
} from '../received-items/receive-items.ts';
import { decodeContent } from './content-encoding.ts';
import { ANY_SOURCE, type SourceAllowlist } from './source-allowlist.ts';
import { type WebhookEvent, webhookRequestOf } from './webhook-request.ts';
import { matchesWebhookSecret, type WebhookSecretSource } from './webhook-secret.ts';

/** Lambda's limit on a synchronous invocation's payload, 6 MB: no body above it ever arrives. */
export const LAMBDA_PAYLOAD_BYTES = 6_291_456;

export interface WebhookHandlerDeps {
  readonly kind: WebhookKind;
  readonly secret: WebhookSecretSource;
  readonly receive: ReceiveDeps;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Source addresses that may call (a function URL has no resource policy to refuse others).
   * @default ANY_SOURCE
   */
  readonly allowedSources?: SourceAllowlist;
  /**
   * Largest body, in bytes after base64 decoding, that is stored; a larger one is answered 413.
   * @default - no limit of the handler's own: Lambda refuses an event above 6 MB before it runs
   */
  readonly maxBodyBytes?: number;
}

/** An API Gateway proxy result with a JSON body. */
export const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const NOT_FOUND = json(404, { message: 'Not Found' });
const FORBIDDEN = json(403, { message: 'Forbidden' });
const METHOD_NOT_ALLOWED: APIGatewayProxyResult = {
  ...json(405, { message: 'Method Not Allowed' }),
  headers: { 'content-type': 'application/json', allow: 'POST' },
};
const TOO_LARGE = json(413, { message: 'Payload Too Large' });
const MO_SUCCESS = json(200, { code: '10000', message: 'success' });
/**
 * Any code of 20000 or above makes the gateway deliver the MO body again. The status is 500 as
 * well, so a gateway that looked only at the status would redeliver too.
 */
const MO_RETRY = json(500, { code: '29999', message: 'temporary storage failure; deliver again' });
const REPORT_RETRY = json(400, { message: 'temporary storage failure' });

/**
 * The webhook contract of spec 01 §6, as one primary adapter for both routes:
 * `POST /webhooks/{secret}/report` answers 200 (stored), 204 (nothing to do) or 400 (deliver
 * again); `POST /webhooks/{secret}/mo` answers `{"code":"10000"}` after storage or a code of 20000
 * and above to be delivered again. A wrong secret, or a path other than this receiver's, answers
 * 404 and touches nothing.
 *
 * It takes both front doors' events (see `webhookRequestOf`): API Gateway's REST proxy event and
 * a function URL's. Before any store work, in this order: a source outside `allowedSources`
 * answers 403 (before the secret is even looked up), a wrong secret or path 404, a method other
 * than POST 405, a body above `maxBodyBytes` 413. Every body within the limit is kept (a body too
 * large for one item or one event goes to the payload bucket). Anything that throws (the secret
 * lookup, the store, S3) is answered with the contract's "deliver again", never with a bare 5xx,
 * and logged without the body.
 */
export const createWebhookHandler =
  (deps: WebhookHandlerDeps) =>
  async (event: WebhookEvent): Promise<APIGatewayProxyResult> => {
    try {
      return await handle(deps, event);
    } catch (error) {
      // Counted with the failed writes: the body is not stored and the gateway redelivers it.
      deps.metrics.addMetric('StoreFailures', MetricUnit.Count, 1);
      deps.logger.error('webhook failed; asking for redelivery', {
        webhook: deps.kind,
        error: describeError(error),
      });
      return deps.kind === 'report' ? REPORT_RETRY : MO_RETRY;
    }
  };

const handle = async (
  deps: WebhookHandlerDeps,
  event: WebhookEvent,
): Promise<APIGatewayProxyResult> => {
  const { kind, logger, metrics } = deps;
  const request = webhookRequestOf(event, kind);
  if (!(deps.allowedSources ?? ANY_SOURCE)(request.sourceIp)) {
    logger.warn('webhook source address not allowed', {
      webhook: kind,
      sourceIp: request.sourceIp,
    });
    return FORBIDDEN;
  }
  if (!matchesWebhookSecret(request.secret, await deps.secret())) {
    metrics.addMetric('WebhookSecretRejected', MetricUnit.Count, 1);
    logger.warn('webhook path secret did not match', { webhook: kind });
    return NOT_FOUND;
  }
  if (request.method !== 'POST') {
    logger.warn('webhook method not allowed', { webhook: kind, method: request.method });
    return METHOD_NOT_ALLOWED;
  }
  const maxBodyBytes = deps.maxBodyBytes ?? Number.POSITIVE_INFINITY;
  if (request.bodyBytes > maxBodyBytes) {
    logger.error('webhook body above the size limit; not stored', {
      webhook: kind,
      bodyBytes: request.bodyBytes,
      maxBodyBytes,
    });
    return TOO_LARGE;
  }
  const decoded = decodeContent(request.body, request.contentEncoding, maxBodyBytes);
  if (decoded.kind === 'too-large') {
    logger.error('webhook body above the size limit once decoded; not stored', {
      webhook: kind,
      contentEncoding: request.contentEncoding,
      maxBodyBytes,
    });
    return TOO_LARGE;
  }
  const outcome =
    decoded.kind === 'unreadable'
      ? await keepUnreadableBody(kind, request.body, decoded.reason, deps.receive)
      : kind === 'report'
        ? await receiveReports(decoded.body, deps.receive)
        : await receiveInbound(decoded.body, deps.receive);
  record(outcome, deps);
  if (outcome.result === 'retry') return kind === 'report' ? REPORT_RETRY : MO_RETRY;
  if (kind === 'mo') return MO_SUCCESS;
  return outcome.result === 'empty'
    ? { statusCode: 204, body: '' }
    : json(200, { code: '10000', message: 'success' });
};

/** Name and the start of the message, phone-like digits masked: never the body. */
const describeError = (error: unknown) =>
  error instanceof Error
    ? { name: error.name, message: maskPhonesInText(error.message.slice(0, 300)) }
    : { name: typeof error, message: '' };

const record = (outcome: ReceiveOutcome, { kind, logger, metrics }: WebhookHandlerDeps) => {
  const prefix = kind === 'report' ? 'Reports' : 'InboundMessages';
  metrics.addMetric(`${prefix}Stored`, MetricUnit.Count, outcome.stored);
  metrics.addMetric(`${prefix}Duplicate`, MetricUnit.Count, outcome.duplicates);
  metrics.addMetric('ItemsQuarantined', MetricUnit.Count, outcome.quarantined);
  metrics.addMetric('UnrecognisedBodies', MetricUnit.Count, outcome.unrecognised);
  metrics.addMetric('StoreFailures', MetricUnit.Count, outcome.failed);
  const summary = {
    webhook: kind,
    result: outcome.result,
    stored: outcome.stored,
    duplicates: outcome.duplicates,
    quarantined: outcome.quarantined,
    unrecognised: outcome.unrecognised,
    failed: outcome.failed,
    [kind === 'report' ? 'msgKeys' : 'moKeys']: outcome.keys,
  };
  // What an operator acts on is a warning or an error; a body stored whole is a debug line, since
  // each webhook call is one item and one log line would cost as much as the item's write (its
  // counts are in the metrics, its items in the event table).
  if (outcome.result === 'retry')
    logger.error('webhook body not fully stored; asking for redelivery', summary);
  else if (outcome.quarantined + outcome.unrecognised > 0)
    logger.warn('webhook body stored with quarantined parts', summary);
  else logger.debug('webhook body stored', summary);
};
