/**
 * The webhook receivers of the handler tests (`createWebhookHandler` on a fake store) and the two
 * fronts AWS puts before them: API Gateway's REST proxy event and a function URL's event
 * (payload format 2.0), each as a way to post a body to a path secret.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { vi } from 'vitest';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { cidrAllowlist } from '../../functions/webhooks/source-allowlist.ts';
import { FakeEventStore } from './fake-event-store.ts';
import { MemoryPayloadStore } from './limited-event-store.ts';
import { RECEIVE_SETTINGS } from './webhook-receive-settings.ts';

/** The path secret during a rotation: the current value and the one it replaced. */
export const SECRET = {
  current: 'current-secret-0123456789',
  previous: 'previous-secret-0123456789',
};
/** The gateway's source address in the function URL events. */
export const GATEWAY_V4 = '203.0.113.7';

/** A receiver of `kind` on a fake store and payload store, silent unless given a logger. */
export const webhookReceiver = (
  kind: WebhookKind,
  options: { allowed?: readonly string[]; maxBodyBytes?: number; logger?: Logger } = {},
) => {
  const store = new FakeEventStore();
  const payloads = new MemoryPayloadStore();
  const secret = vi.fn(async () => SECRET);
  const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
  const handler = createWebhookHandler({
    kind,
    secret,
    receive: { store, payloads, ...RECEIVE_SETTINGS },
    logger: options.logger ?? new Logger({ logLevel: 'SILENT' }),
    metrics,
    ...(options.allowed ? { allowedSources: cidrAllowlist(options.allowed) } : {}),
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
  return { store, payloads, handler, secret, metrics };
};

/** A REST API proxy event as the receiver reads it: the path secret and the body. */
export const restEvent = (
  secret: string | undefined,
  body: string | null,
  isBase64Encoded = false,
) =>
  ({
    pathParameters: secret === undefined ? null : { secret },
    body,
    isBase64Encoded,
  }) as unknown as APIGatewayProxyEvent;

/** A function URL event as Lambda documents it (payload format 2.0), for `POST rawPath`. */
export const urlEvent = (
  rawPath: string,
  body: string | undefined,
  overrides: { method?: string; sourceIp?: string; isBase64Encoded?: boolean } = {},
): APIGatewayProxyEventV2 => ({
  version: '2.0',
  routeKey: '$default',
  rawPath,
  rawQueryString: '',
  headers: {
    'content-type': 'application/json',
    host: 'abcdefghij.lambda-url.ap-northeast-2.on.aws',
    'x-forwarded-for': overrides.sourceIp ?? GATEWAY_V4,
  },
  requestContext: {
    accountId: 'anonymous',
    apiId: 'abcdefghij',
    domainName: 'abcdefghij.lambda-url.ap-northeast-2.on.aws',
    domainPrefix: 'abcdefghij',
    http: {
      method: overrides.method ?? 'POST',
      path: rawPath,
      protocol: 'HTTP/1.1',
      sourceIp: overrides.sourceIp ?? GATEWAY_V4,
      userAgent: 'gateway',
    },
    requestId: 'request-1',
    routeKey: '$default',
    stage: '$default',
    time: '21/Nov/2026:00:00:00 +0000',
    timeEpoch: 1_795_305_600_000,
  },
  ...(body === undefined ? {} : { body }),
  isBase64Encoded: overrides.isBase64Encoded ?? false,
});

/** The webhook path of `kind` under `secret`, as the front door routes it. */
export const webhookPath = (kind: WebhookKind, secret = SECRET.current) =>
  `/webhooks/${secret}/${kind}`;

/** A post of `body` to the `kind` webhook under `secret`, as the event one front hands the receiver. */
export type FrontPost = (
  kind: WebhookKind,
  secret: string,
  body: string,
  isBase64Encoded?: boolean,
) => APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** Both fronts, by name. */
export const FRONTS: ReadonlyArray<readonly [string, FrontPost]> = [
  [
    'the REST API',
    (_kind, secret, body, isBase64Encoded) => restEvent(secret, body, isBase64Encoded),
  ],
  [
    'a function URL',
    (kind, secret, body, isBase64Encoded) =>
      urlEvent(webhookPath(kind, secret), body, { isBase64Encoded: isBase64Encoded ?? false }),
  ],
];
