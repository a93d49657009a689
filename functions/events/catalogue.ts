import { z } from 'zod';

/**
 * The public event contract. Every event msgbridge puts on the bus has
 * `detail = { metadata, data }`; these schemas are the source of truth for the JSON Schema files
 * and the catalogue page generated from them. Detail-types are past tense.
 */

const IsoDateTime = z.iso.datetime({ offset: true });

/** How an item reached msgbridge. */
export const ViaSchema = z.enum(['webhook', 'polling', 'status-query']);
export type Via = z.infer<typeof ViaSchema>;

export const EventMetadataSchema = z.strictObject({
  /** Ours, stable across redeliveries and replays: derived from the idempotency key. */
  id: z.uuid(),
  /** The detail-type. */
  type: z.string(),
  /** Version of the `data` schema of this type. */
  version: z.literal('1'),
  /** When the fact happened (the gateway's time where it gives one), UTC. */
  occurredAt: IsoDateTime,
  /** When msgbridge received it, UTC. */
  receivedAt: IsoDateTime,
  via: ViaSchema,
  /** What makes this event unique: `report:<msgKey>:<resultCode>:<ch>`, `mo:<moKey>`, … */
  idempotencyKey: z.string(),
});
export type EventMetadata = z.infer<typeof EventMetadataSchema>;

/** retryable: sending again later may work; permanent: it will not; uncertain: it may still arrive. */
export const FailureCategorySchema = z.enum(['retryable', 'permanent', 'uncertain']);
export type FailureCategory = z.infer<typeof FailureCategorySchema>;

const GatewayItemSchema = z.record(z.string(), z.unknown());

export const DeliveryReportDataSchema = z.strictObject({
  msgKey: z.string(),
  cliKey: z.string(),
  delivered: z.boolean(),
  resultCode: z.string(),
  resultCodeDesc: z.string().nullable(),
  /** Only when not delivered. */
  failureCategory: FailureCategorySchema.nullable(),
  /** The channel that finally delivered (or last tried). */
  channel: z.string().nullable(),
  fallbackReasons: z.array(
    z.strictObject({
      channel: z.string().nullable(),
      resultCode: z.string().nullable(),
      resultDesc: z.string().nullable(),
      telco: z.string().nullable(),
    }),
  ),
  telco: z.string().nullable(),
  productCode: z.string().nullable(),
  /** Result time in UTC; `null` when the gateway's value could not be read (kept in `reportedAtKst`). */
  reportedAt: IsoDateTime.nullable(),
  /** The gateway's own zone-less KST value, as sent. */
  reportedAtKst: z.string().nullable(),
  /** Recipient number (webhook reports only). */
  phone: z.string().nullable(),
  /** Two-way RCS message. */
  isBi: z.boolean().nullable(),
  userCustomFields: z.record(z.string(), z.unknown()).nullable(),
  /** The report item exactly as the gateway sent it, unknown fields included. */
  raw: GatewayItemSchema,
});
export type DeliveryReportData = z.infer<typeof DeliveryReportDataSchema>;

export const InboundMessageDataSchema = z.strictObject({
  moKey: z.string(),
  /** The end user's phone (`moCallback`). */
  sender: z.string().nullable(),
  /** Our receiving number (`moNumber`). */
  receivingNumber: z.string().nullable(),
  /** `SMSMO`, `LMSMO`, `MMSMO`, `RCSMO`, or whatever the gateway sends. */
  type: z.string().nullable(),
  text: z.string().nullable(),
  title: z.string().nullable(),
  telco: z.string().nullable(),
  productCode: z.string().nullable(),
  receivedAtGateway: IsoDateTime.nullable(),
  receivedAtGatewayKst: z.string().nullable(),
  attachmentCount: z.number().int().min(0),
  attachments: z.array(
    z.strictObject({
      name: z.string().nullable(),
      sizeBytes: z.number().nullable(),
      extension: z.string().nullable(),
    }),
  ),
  /** The MO item exactly as the gateway sent it; attachment URLs are single-use and not for subscribers. */
  raw: GatewayItemSchema,
});
export type InboundMessageData = z.infer<typeof InboundMessageDataSchema>;

export const WebhookKindSchema = z.enum(['report', 'mo']);

export const UnrecognisedBodyDataSchema = z.strictObject({
  webhook: WebhookKindSchema,
  /** SHA-256 of the body, hex. */
  bodySha256: z.string(),
  /** Top-level keys of the body, to route on without parsing it. */
  topLevelKeys: z.array(z.string()),
  /** The body as received (UTF-8 text), cut at 64 KiB; the event table keeps it whole. */
  body: z.string(),
  truncated: z.boolean(),
});
export type UnrecognisedBodyData = z.infer<typeof UnrecognisedBodyDataSchema>;

export const QuarantinedItemDataSchema = z.strictObject({
  webhook: WebhookKindSchema,
  reason: z.string(),
  /** Position of the item in its list; `null` when the whole body was quarantined. */
  index: z.number().int().nullable(),
  bodySha256: z.string(),
  /** The item (or body) as received, as text, cut at 64 KiB; the event table keeps it whole. */
  raw: z.string(),
  truncated: z.boolean(),
});
export type QuarantinedItemData = z.infer<typeof QuarantinedItemDataSchema>;

/** Every event type: detail-type, data schema. */
export const EVENT_TYPES = {
  deliveryReport: { detailType: 'Delivery Report Received', data: DeliveryReportDataSchema },
  inboundMessage: { detailType: 'Inbound Message Received', data: InboundMessageDataSchema },
  unrecognisedBody: {
    detailType: 'Unrecognised Inbound Body Received',
    data: UnrecognisedBodyDataSchema,
  },
  quarantinedItem: { detailType: 'Item Quarantined', data: QuarantinedItemDataSchema },
} as const;
export type EventTypeName = keyof typeof EVENT_TYPES;

export const eventDetailSchema = <D extends z.ZodType>(data: D) =>
  z.strictObject({ metadata: EventMetadataSchema, data });
