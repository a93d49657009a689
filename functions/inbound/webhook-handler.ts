import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import type { Environment } from '../commons/environment.ts';
import { maskPhonesInText } from '../commons/helpers/mask.ts';
import {
  matchesWebhookSecret,
  type WebhookSecretSource,
  webhookSecretFromEnvironment,
} from '../commons/webhook-secret.ts';
import type { EventStore } from '../events/store-ports.ts';
import { receiveDepsFromEnvironment } from './receive-environment.ts';
import {
  type ReceiveDeps,
  type ReceiveOutcome,
  receiveInbound,
  receiveReports,
  type WebhookKind,
} from './receive-webhook.ts';

export interface WebhookHandlerDeps {
  readonly kind: WebhookKind;
  readonly secret: WebhookSecretSource;
  readonly receive: ReceiveDeps;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const NOT_FOUND = json(404, { message: 'Not Found' });
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
 * and above to be delivered again. A wrong secret answers 404 and touches nothing.
 *
 * Every body that reaches the handler is kept: there is no size limit here (API Gateway takes at
 * most 10 MB and Lambda 6 MB; a body too large for one item or one event goes to the payload
 * bucket). Anything that throws (the secret lookup, the store, S3) is answered with the contract's
 * "deliver again", never with API Gateway's bare 5xx, and logged without the body.
 */
export const createWebhookHandler =
  (deps: WebhookHandlerDeps) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
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
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> => {
  const { kind, logger, metrics } = deps;
  if (!matchesWebhookSecret(event.pathParameters?.secret, await deps.secret())) {
    metrics.addMetric('WebhookSecretRejected', MetricUnit.Count, 1);
    logger.warn('webhook path secret did not match', { webhook: kind });
    return NOT_FOUND;
  }
  const body =
    event.body && event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').toString('utf8')
      : event.body;
  const outcome =
    kind === 'report'
      ? await receiveReports(body, deps.receive)
      : await receiveInbound(body, deps.receive);
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
  if (outcome.result === 'retry')
    logger.error('webhook body not fully stored; asking for redelivery', summary);
  else if (outcome.quarantined + outcome.unrecognised > 0)
    logger.warn('webhook body stored with quarantined parts', summary);
  else logger.info('webhook body stored', summary);
};

/** What the local run supplies instead of a Lambda's own. */
export interface ReceiverOverrides extends CompositionOverrides {
  /** Wraps the event store (the local run's injected write failures). */
  readonly store?: (store: EventStore) => EventStore;
}

/**
 * Composes a webhook receiver (`receive-reports` or `receive-inbound`) from its environment, read
 * once, at cold start: `EVENT_TABLE_NAME`; `PAYLOAD_BUCKET` (bodies too large for one item or one
 * event); `WEBHOOK_SECRET_ARN` (or `WEBHOOK_SECRET` locally); `EVENT_RETENTION_DAYS` (default 35,
 * at least 8 so duplicates are recognised through the gateway's 7-day MO window);
 * `STORE_CONCURRENCY` (default 16 conditional puts in flight). The Lambda entry wraps the handler
 * in middy; the local run serves it from its webhook server.
 */
export const composeReceiver = (
  kind: WebhookKind,
  env: Environment = process.env,
  overrides: ReceiverOverrides = {},
) => {
  const { logger, metrics } =
    kind === 'report'
      ? observabilityOf('receive-reports', overrides)
      : observabilityOf('receive-inbound', overrides);
  const secret = webhookSecretFromEnvironment(env);
  const stored = receiveDepsFromEnvironment(logger, env, overrides);
  const receive: ReceiveDeps = overrides.store
    ? { ...stored, store: overrides.store(stored.store) }
    : stored;
  return {
    handler: createWebhookHandler({ kind, secret, receive, logger, metrics }),
    receive,
    logger,
    metrics,
  };
};
