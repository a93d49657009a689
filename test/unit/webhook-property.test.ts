import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import { eventKeys, SORT_KEY } from '../../functions/commons/table-keys.ts';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { MoItemSchema, ReportItemSchema } from '../../gateway/schemas/index.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';

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

const call = (handler: ReturnType<typeof handlerFor>, body: PostedBody) =>
  handler({
    pathParameters: { secret: SECRET },
    body: body.text,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent);

/** Keys that break a careless key layout: separators, escapes, unpaired surrogates. */
const awkwardKeyArb = fc
  .array(fc.constantFrom('#', ':', '%', '-', '%23', 'A', '1', '\ud800', '\udbff', '\udc00'), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(''));

/** A report item that may be valid, damaged in one field, or not an object at all. */
const reportItemArb = fc.oneof(
  fc.nat({ max: 50 }).map((i) => reportItem(i)),
  fc
    .record({
      i: fc.nat({ max: 50 }),
      msgKey: awkwardKeyArb,
      resultCode: awkwardKeyArb,
      ch: fc.option(awkwardKeyArb, { nil: undefined }),
    })
    .map(({ i, ...keys }) => ({ ...reportItem(i), ...keys })),
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
    .record({ i: fc.nat({ max: 50 }), moKey: awkwardKeyArb })
    .map(({ i, moKey }) => ({ ...moItem(i), moKey })),
  fc
    .record({
      i: fc.nat({ max: 50 }),
      field: fc.constantFrom('moKey', 'contentCnt', 'contentInfoLst', 'moTitle'),
      value: fc.anything(),
    })
    .map(({ i, field, value }) => ({ ...moItem(i), [field]: value })),
  fc.anything(),
);

/**
 * A body, and whether the whole of it must be kept as a quarantined body (`whole`): when it
 * repeats its list, has a count that disagrees with the list, or a field beside them; `undefined`
 * where the test does not model it.
 */
interface PostedBody {
  readonly text: string;
  readonly whole?: boolean;
}

const bodyArb = (
  listField: string,
  countField: string,
  item: fc.Arbitrary<unknown>,
): fc.Arbitrary<PostedBody> =>
  fc.oneof(
    fc
      .record({
        list: fc.array(item, { maxLength: 20 }),
        earlier: fc.option(fc.array(item, { maxLength: 3 }), { nil: undefined }),
        count: fc.option(fc.oneof(fc.nat({ max: 25 }), fc.nat({ max: 25 }).map(String)), {
          nil: undefined,
        }),
        extra: fc.boolean(),
        bom: fc.boolean(),
      })
      .map(({ list, earlier, count, extra, bom }) => {
        const members = [
          ...(count === undefined ? [] : [`"${countField}":${JSON.stringify(count)}`]),
          ...(earlier === undefined ? [] : [`"${listField}":${JSON.stringify(earlier)}`]),
          `"${listField}":${JSON.stringify(list)}`,
          ...(extra ? ['"extra":1'] : []),
        ];
        const countAgrees = count === undefined || Number(count) === list.length;
        return {
          text: `${bom ? '\ufeff' : ''}{${members.join(',')}}`,
          whole: earlier !== undefined || extra || !countAgrees,
        };
      }),
    fc.json().map((text) => ({ text })),
    fc.string().map((text) => ({ text })),
    fc.constant({ text: JSON.stringify({ [listField]: null }), whole: false }),
  );

/**
 * Nothing that arrived is lost: every item of a recognised list is either stored under its own key
 * or quarantined under its index; a body that is not a recognised list leaves one stored trace.
 */
const expectEveryItemKept = (posted: PostedBody, kind: WebhookKind, store: FakeEventStore) => {
  const listField = kind === 'report' ? 'rptLst' : 'moLst';
  const body = posted.text.replace(/^\ufeff/, '');
  // The whole body is kept exactly, as it came, when parts of it reach no event.
  const wholeBody = store
    .ofKind('quarantine')
    .filter((record) => record.sk.endsWith('#body'))
    .map((record) => record.payload);
  if (posted.whole !== undefined) expect(wholeBody).toEqual(posted.whole ? [posted.text] : []);
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

/** An item's key as the event table stores it: UTF-8, as the fake event store keys it too. */
const storedKey = (kind: WebhookKind, item: unknown): string | undefined => {
  const utf8 = (key: string) => Buffer.from(key, 'utf8').toString('utf8');
  if (kind === 'report') {
    const report = ReportItemSchema.safeParse(item);
    return report.success
      ? utf8(
          `${eventKeys.report(report.data.msgKey)}|${eventKeys.result(report.data.resultCode, report.data.ch ?? null)}`,
        )
      : undefined;
  }
  const mo = MoItemSchema.safeParse(item);
  return mo.success ? utf8(`${eventKeys.mo(mo.data.moKey)}|${SORT_KEY.mo}`) : undefined;
};

describe('webhook handlers under any body', () => {
  it('the report receiver answers 200, 204 or 400, never throws, and stores every valid report', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb('rptLst', 'rptCnt', reportItemArb),
        fc.boolean(),
        async (body, flaky) => {
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
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the MO receiver answers code 10000 or a retry code, never throws, and stores every valid message', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb('moLst', 'moCnt', moItemArb), async (body) => {
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
