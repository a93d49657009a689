import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { handler, rulePattern } from '../../docs/examples/delivery-subscriber.ts';
import {
  ALL_DETAIL_TYPES,
  type DeliveryReportReceived,
  type DeliveryReportReceivedData,
  DetailType,
  type EventMetadata,
  type InboundAttachmentLostData,
  type InboundAttachmentStoredData,
  type InboundMessageReceivedData,
  type ItemQuarantinedData,
  isDeliveryReportReceived,
  isInboundMessageReceived,
  isMessageAccepted,
  isMsgbridgeEvent,
  isMsgbridgeEventOf,
  type MessageAcceptedData,
  type MessageRejectedData,
  type MessageScheduledData,
  type MessageStatusUnavailableData,
  type MessengerStatisticsCollectedData,
  type MsgbridgeEvent,
  type SendRejectedData,
  type TrackingUrlStatisticsCollectedData,
  type UnrecognisedInboundBodyReceivedData,
} from '../../events/index.ts';
import type {
  MessageAcceptedData as CatalogueAccepted,
  InboundAttachmentLostData as CatalogueAttachmentLost,
  InboundAttachmentStoredData as CatalogueAttachmentStored,
  EventMetadata as CatalogueMetadata,
  MessageRejectedData as CatalogueRejected,
  MessageScheduledData as CatalogueScheduled,
  SendRejectedData as CatalogueSendRejected,
  MessageStatusUnavailableData as CatalogueStatusUnavailable,
  DeliveryReportData,
  EVENT_TYPES,
  EventTypeName,
  InboundMessageData,
  QuarantinedItemData,
  UnrecognisedBodyData,
} from '../../functions/catalogue/index.ts';
import { EVENT_TYPES as CATALOGUE } from '../../functions/catalogue/index.ts';
import type {
  MessengerStatisticsData,
  TrackingUrlStatisticsData,
} from '../../functions/catalogue/statistics-events.ts';
import { renderEventArtefacts } from '../../scripts/event-artefacts.ts';
import { CONSUMER_EXAMPLE_PATH, renderEventCatalogue } from '../../scripts/event-catalogue-docs.ts';
import { EVENT_TYPES_PATH, renderEventTypes } from '../../scripts/event-types.ts';

import { busEvent } from '../support/bus-event.ts';

const root = join(import.meta.dirname, '../..');

const report = (
  delivered: boolean,
  messageStatus: 'delivered' | 'failed' | 'uncertain' = delivered ? 'delivered' : 'failed',
  resultCode = delivered ? '10000' : '31001',
) =>
  busEvent('deliveryReport', {
    msgKey: 'M1',
    cliKey: 'C1',
    delivered,
    messageStatus,
    resultCode,
    resultCodeDesc: null,
    failureCategory: delivered ? null : resultCode === '32114' ? 'uncertain' : 'retryable',
    channel: 'SMS',
    fallbackReasons: [],
    telco: null,
    productCode: 'SMS',
    reportedAt: null,
    reportedAtKst: null,
    phone: null,
    isBi: null,
    userCustomFields: null,
    raw: { msgKey: 'M1' },
  });

const inbound = busEvent('inboundMessage', {
  moKey: 'MO1',
  sender: null,
  receivingNumber: '15880000',
  type: 'SMSMO',
  text: 'hello',
  title: null,
  telco: null,
  productCode: null,
  receivedAtGateway: null,
  receivedAtGatewayKst: null,
  attachmentCount: 0,
  attachments: [],
  raw: { moKey: 'MO1' },
});

describe('the typed events (events/index.ts)', () => {
  it('are committed exactly as generated from the schemas (run `npm run docs:events`)', () => {
    // Act
    const generated = renderEventArtefacts()[EVENT_TYPES_PATH];

    // Assess
    expect(readFileSync(join(root, EVENT_TYPES_PATH), 'utf8')).toBe(generated);
  });

  it('are the types zod infers from the catalogue, field for field', () => {
    // Assess: checked by the type-checker (`npm run test:types`), which fails on any difference.
    expectTypeOf<EventMetadata>().toEqualTypeOf<CatalogueMetadata>();
    expectTypeOf<DeliveryReportReceivedData>().toEqualTypeOf<DeliveryReportData>();
    expectTypeOf<InboundMessageReceivedData>().toEqualTypeOf<InboundMessageData>();
    expectTypeOf<UnrecognisedInboundBodyReceivedData>().toEqualTypeOf<UnrecognisedBodyData>();
    expectTypeOf<ItemQuarantinedData>().toEqualTypeOf<QuarantinedItemData>();
    expectTypeOf<MessageAcceptedData>().toEqualTypeOf<CatalogueAccepted>();
    expectTypeOf<MessageRejectedData>().toEqualTypeOf<CatalogueRejected>();
    expectTypeOf<MessageScheduledData>().toEqualTypeOf<CatalogueScheduled>();
    expectTypeOf<SendRejectedData>().toEqualTypeOf<CatalogueSendRejected>();
    expectTypeOf<InboundAttachmentStoredData>().toEqualTypeOf<CatalogueAttachmentStored>();
    expectTypeOf<InboundAttachmentLostData>().toEqualTypeOf<CatalogueAttachmentLost>();
    expectTypeOf<MessageStatusUnavailableData>().toEqualTypeOf<CatalogueStatusUnavailable>();
    expectTypeOf<TrackingUrlStatisticsCollectedData>().toEqualTypeOf<TrackingUrlStatisticsData>();
    expectTypeOf<MessengerStatisticsCollectedData>().toEqualTypeOf<MessengerStatisticsData>();
    expectTypeOf<MsgbridgeEvent['detail-type']>().toEqualTypeOf<
      (typeof EVENT_TYPES)[EventTypeName]['detailType']
    >();
  });

  it('name every detail-type of the catalogue', () => {
    const catalogued = Object.values(CATALOGUE).map(({ detailType }) => detailType);

    expect([...ALL_DETAIL_TYPES].sort()).toEqual(catalogued.sort());
    expect(DetailType.DeliveryReportReceived).toBe('Delivery Report Received');
  });

  it('guard by source, detail-type and metadata', () => {
    // Arrange
    const delivered = report(true);
    const { metadata } = delivered.detail;

    // Act / Assess
    expect(isDeliveryReportReceived(delivered)).toBe(true);
    expect(isMsgbridgeEvent(delivered)).toBe(true);
    expect(isMsgbridgeEventOf(DetailType.DeliveryReportReceived, delivered)).toBe(true);
    expect(isInboundMessageReceived(delivered)).toBe(false);
    expect(isMessageAccepted(delivered)).toBe(false);
    expect(isDeliveryReportReceived(delivered, 'acme.messaging')).toBe(false);
    expect(isDeliveryReportReceived({ ...delivered, source: 'acme.messaging' })).toBe(false);
    expect(
      isDeliveryReportReceived(
        { ...delivered, source: 'acme.messaging' } satisfies object,
        'acme.messaging',
      ),
    ).toBe(true);
    const withMetadata = (changed: Record<string, unknown>) => ({
      ...delivered,
      detail: { ...delivered.detail, metadata: { ...metadata, ...changed } },
    });
    expect(isDeliveryReportReceived(withMetadata({ type: 'Inbound Message Received' }))).toBe(
      false,
    );
    expect(isDeliveryReportReceived(withMetadata({ version: '2' }))).toBe(false);
    expect(isDeliveryReportReceived(withMetadata({ id: 7 }))).toBe(false);
    expect(isDeliveryReportReceived(withMetadata({ idempotencyKey: undefined }))).toBe(false);
    expect(isDeliveryReportReceived({ ...delivered, detail: { metadata } })).toBe(false);
    expect(
      isDeliveryReportReceived({ ...delivered, detail: JSON.stringify(delivered.detail) }),
    ).toBe(false);
    for (const value of [null, undefined, 'Delivery Report Received', [], 42])
      expect(isMsgbridgeEvent(value)).toBe(false);
    expect(isMsgbridgeEvent({ ...delivered, 'detail-type': 'Order Placed' })).toBe(false);
  });

  it('narrow the union on detail-type', () => {
    const event: unknown = inbound;

    if (!isMsgbridgeEvent(event)) throw new Error('expected a msgbridge event');
    if (event['detail-type'] !== 'Inbound Message Received') throw new Error('expected MO');
    expectTypeOf(event.detail.data).toEqualTypeOf<InboundMessageReceivedData>();
    expect(event.detail.data.moKey).toBe('MO1');
  });

  it('refuse to type a JSON Schema keyword they do not know', () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: {}, additionalProperties: false },
        data: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['metadata', 'data'],
    };

    expect(() =>
      renderEventTypes([{ detailType: 'Order Placed', schema: schema as never }]),
    ).toThrow(/oneOf/);
  });
});

describe('the consumer example (docs/examples/delivery-subscriber.ts)', () => {
  it('is shown on the catalogue page as a subscriber writes it, importing msgbridge/events', () => {
    const example = readFileSync(join(root, CONSUMER_EXAMPLE_PATH), 'utf8');
    const page = renderEventCatalogue()['docs/events.md'] ?? '';

    expect(example).toContain("from '../../events/index.ts';");
    expect(page).toContain(
      `\`\`\`ts\n${example.replace("from '../../events/index.ts';", "from 'msgbridge/events';")}\`\`\``,
    );
  });

  it('acts on the events its rule selects and ignores the rest', async () => {
    // Act / Assess
    expect(await handler(report(false))).toEqual({
      action: 'resend-later',
      cliKey: 'C1',
      code: '31001',
    });
    expect(await handler(report(true))).toEqual({ action: 'ignore', reason: 'C1 delivered' });
    // A failure reported after the message was delivered is not acted on
    expect(await handler(report(false, 'delivered'))).toEqual({
      action: 'ignore',
      reason: 'C1 delivered',
    });
    expect(await handler(report(false, 'uncertain', '32114'))).toEqual({
      action: 'ignore',
      reason: 'C1 may still arrive (32114)',
    });
    expect(await handler(inbound)).toEqual({ action: 'answer', moKey: 'MO1', text: 'hello' });
    expect(await handler({ ...inbound, source: 'someone.else' })).toMatchObject({
      action: 'ignore',
    });
    expectTypeOf<DeliveryReportReceived>().toExtend<MsgbridgeEvent>();
    expect(rulePattern['detail-type']).toEqual([
      'Delivery Report Received',
      'Inbound Message Received',
    ]);
  });
});
