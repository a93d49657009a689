import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MoItemSchema, ReportItemSchema } from '../../functions/commons/gateway/schemas/index.ts';
import type { WebhookKind } from '../../functions/inbound/receive-webhook.ts';
import { createWebhookHandler } from '../../functions/inbound/webhook-handler.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { moItem, reportItem } from '../support/gateway-bodies.ts';

const SECRET = 'property-secret-0123456789';

const handlerFor = (kind: WebhookKind, store: FakeEventStore) =>
  createWebhookHandler({
    kind,
    secret: async () => ({ current: SECRET }),
    receive: {
      store,
      now: () => new Date('2026-11-21T00:00:00Z'),
      retentionDays: 35,
      concurrency: 4,
    },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
  });

const call = (handler: ReturnType<typeof handlerFor>, body: string) =>
  handler({
    pathParameters: { secret: SECRET },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent);

/** A report item that may be valid, damaged in one field, or not an object at all. */
const reportItemArb = fc.oneof(
  fc.nat({ max: 50 }).map((i) => reportItem(i)),
  fc
    .record({
      i: fc.nat({ max: 50 }),
      field: fc.constantFrom('msgKey', 'cliKey', 'resultCode', 'rptDt', 'fbReasonLst'),
      value: fc.anything(),
    })
    .map(({ i, field, value }) => ({ ...reportItem(i), [field]: value })),
  fc.anything(),
);

const moItemArb = fc.oneof(
  fc.nat({ max: 50 }).map((i) => moItem(i)),
  fc
    .record({
      i: fc.nat({ max: 50 }),
      field: fc.constantFrom('moKey', 'contentCnt', 'contentInfoLst', 'moTitle'),
      value: fc.anything(),
    })
    .map(({ i, field, value }) => ({ ...moItem(i), [field]: value })),
  fc.anything(),
);

const bodyArb = (listField: string, item: fc.Arbitrary<unknown>) =>
  fc.oneof(
    fc
      .array(item, { maxLength: 30 })
      .map((list) => JSON.stringify({ [listField]: list, extra: 1 })),
    fc.json(),
    fc.string(),
    fc.constant(JSON.stringify({ [listField]: null })),
  );

/**
 * Nothing that arrived is lost: every item of a recognised list is either stored under its own key
 * or quarantined under its index; a body that is not a recognised list leaves one stored trace.
 */
const expectEveryItemKept = (body: string, kind: WebhookKind, store: FakeEventStore) => {
  const listField = kind === 'report' ? 'rptLst' : 'moLst';
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    expect(store.ofKind('quarantine')).toHaveLength(1);
    return;
  }
  const list =
    parsed !== null && typeof parsed === 'object'
      ? (parsed as Record<string, unknown>)[listField]
      : undefined;
  if (list === null || (Array.isArray(list) && list.length === 0)) return;
  if (!Array.isArray(list)) {
    expect(store.ofKind('unrecognised')).toHaveLength(1);
    return;
  }
  const quarantinedIndexes = new Set(
    store.ofKind('quarantine').map((record) => Number(record.sk.split('#').at(-1))),
  );
  list.forEach((item, index) => {
    const key = storedKey(kind, item);
    const kept = (key !== undefined && store.items.has(key)) || quarantinedIndexes.has(index);
    expect(kept, `item ${index} kept`).toBe(true);
  });
};

const storedKey = (kind: WebhookKind, item: unknown): string | undefined => {
  if (kind === 'report') {
    const report = ReportItemSchema.safeParse(item);
    return report.success
      ? `REPORT#${report.data.msgKey}|RESULT#${report.data.resultCode}#${report.data.ch ?? '-'}`
      : undefined;
  }
  const mo = MoItemSchema.safeParse(item);
  return mo.success ? `MO#${mo.data.moKey}|MO` : undefined;
};

describe('webhook handlers under any body', () => {
  it('the report receiver answers 200, 204 or 400, never throws, and stores every valid report', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb('rptLst', reportItemArb), fc.boolean(), async (body, flaky) => {
        const store = new FakeEventStore();
        if (flaky) store.failNext(1);
        const handler = handlerFor('report', store);

        const answer = await call(handler, body);

        expect([200, 204, 400]).toContain(answer.statusCode);
        if (answer.statusCode === 400) {
          // A retry answer is only allowed when a write really failed; the redelivery completes it.
          expect(flaky).toBe(true);
          expect((await call(handler, body)).statusCode).not.toBe(400);
        }
        expectEveryItemKept(body, 'report', store);
      }),
      { numRuns: 300 },
    );
  });

  it('the MO receiver answers code 10000 or a retry code, never throws, and stores every valid message', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb('moLst', moItemArb), async (body) => {
        const store = new FakeEventStore();
        const handler = handlerFor('mo', store);

        const answer = await call(handler, body);

        expect(JSON.parse(answer.body).code).toBe('10000');
        expectEveryItemKept(body, 'mo', store);
      }),
      { numRuns: 300 },
    );
  });
});
