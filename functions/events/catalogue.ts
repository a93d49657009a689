import * as z from 'zod';
import { MESSENGER_STATS } from '../commons/gateway/schemas/messenger-statistics.ts';
import { SEND_CHANNELS } from '../sending/channels.ts';

/**
 * The public event contract. Every event msgbridge puts on the bus has
 * `detail = { metadata, data }`; these schemas are the source of truth for the JSON Schema files
 * and the catalogue page generated from them. Detail-types are past tense.
 */

const IsoDateTime = z.iso.datetime({ offset: true });

/** How an item reached msgbridge. */
export const ViaSchema = z.enum([
  'webhook',
  'polling',
  'status-query',
  'send-queue',
  'statistics-query',
]);
export type Via = z.infer<typeof ViaSchema>;

export const EventMetadataSchema = z.strictObject({
  id: z
    .uuid()
    .describe('Ours, stable across redeliveries and replays: derived from the idempotency key.'),
  type: z.string().describe('The detail-type.'),
  version: z.literal('1').describe('Version of the `data` schema of this type.'),
  occurredAt: IsoDateTime.describe(
    "When the fact happened (the gateway's time where it gives one), UTC.",
  ),
  receivedAt: IsoDateTime.describe('When msgbridge received it, UTC.'),
  via: ViaSchema,
  idempotencyKey: z
    .string()
    .describe('What makes this event unique: `report:<msgKey>:<resultCode>:<ch>`, `mo:<moKey>`, …'),
});
export type EventMetadata = z.infer<typeof EventMetadataSchema>;

/** retryable: sending again later may work; permanent: it will not; uncertain: it may still arrive. */
export const FailureCategorySchema = z.enum(['retryable', 'permanent', 'uncertain']);
export type FailureCategory = z.infer<typeof FailureCategorySchema>;

const GatewayItemSchema = z.record(z.string(), z.unknown());

/** Where a body too large for an event or a table item is kept (the claim check). */
export const PayloadRefSchema = z
  .strictObject({
    bucket: z.string(),
    key: z.string(),
    bytes: z.number().int().min(0).describe('Size of the object in bytes.'),
    sha256: z.string().describe('SHA-256 of the object, hex.'),
    item: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe("This item's position in the body's list; `null` when the object is all of it."),
  })
  .describe(
    'The webhook body (or polled page) exactly as received, as a private S3 object encrypted with the stack key. Present only when this event or its table item could not carry everything.',
  );
export type PayloadRef = z.infer<typeof PayloadRefSchema>;

/** As a field of `data`: absent or `null` unless the claim check was used. */
const OptionalPayloadRefSchema = PayloadRefSchema.nullable()
  .optional()
  .describe(PayloadRefSchema.description ?? '');

const OmittedSchema = z
  .array(z.string())
  .describe(
    'Fields of `data` left out (`raw` keeps only the keys, others are `null` or `[]`) because the event would exceed the 256 KiB bus limit; read them from `payloadRef`. Absent when nothing was left out.',
  );

export const DeliveryReportDataSchema = z.strictObject({
  msgKey: z.string().describe("The gateway's message key."),
  cliKey: z.string().describe('Your key, as given in the send request.'),
  delivered: z.boolean().describe('True when `resultCode` is `10000`.'),
  resultCode: z.string().describe('The delivery result code (`10000` = delivered).'),
  resultCodeDesc: z.string().nullable().describe("The gateway's text for the result."),
  failureCategory: FailureCategorySchema.nullable().describe('Only when not delivered.'),
  channel: z.string().nullable().describe('The channel that finally delivered (or last tried).'),
  fallbackReasons: z
    .array(
      z.strictObject({
        channel: z.string().nullable(),
        resultCode: z.string().nullable(),
        resultDesc: z.string().nullable(),
        telco: z.string().nullable(),
      }),
    )
    .describe('Why earlier channels failed, when the gateway fell back (e.g. RCS `54002` → SMS).'),
  telco: z
    .string()
    .nullable()
    .describe('Carrier (text and RCS); the relaying dealer for messenger messages.'),
  productCode: z
    .string()
    .nullable()
    .describe(
      'The billed product (`SMS`, `LMS`, `MMS`, `ITMPL`, `CHAT`, `BRDF`, `BRDNF`, `KFRT1`, …).',
    ),
  reportedAt: IsoDateTime.nullable().describe(
    "Result time in UTC; `null` when the gateway's value could not be read (kept in `reportedAtKst`).",
  ),
  reportedAtKst: z
    .string()
    .nullable()
    .describe(
      "The gateway's own value, as sent: usually zone-less KST, sometimes with a zone (field notes).",
    ),
  phone: z.string().nullable().describe('Recipient number (webhook reports only).'),
  isBi: z.boolean().nullable().describe('Two-way RCS message.'),
  userCustomFields: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Your custom fields from the send request, when the webhook option is on.'),
  raw: GatewayItemSchema.describe(
    'The report item exactly as the gateway sent it, unknown fields included (only its keys when `omitted` lists `raw`).',
  ),
  payloadRef: OptionalPayloadRefSchema,
  omitted: OmittedSchema.optional(),
});
export type DeliveryReportData = z.infer<typeof DeliveryReportDataSchema>;

export const InboundMessageDataSchema = z.strictObject({
  moKey: z.string().describe("The gateway's key of the inbound message."),
  sender: z.string().nullable().describe("The end user's phone (`moCallback`)."),
  receivingNumber: z.string().nullable().describe('Our receiving number (`moNumber`).'),
  type: z
    .string()
    .nullable()
    .describe('`SMSMO`, `LMSMO`, `MMSMO`, `RCSMO`, or whatever the gateway sends.'),
  text: z.string().nullable().describe('The message text (`moMsg`).'),
  title: z.string().nullable().describe('Title of an LMS, MMS or RCS message (`moTitle`).'),
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
  raw: GatewayItemSchema.describe(
    'The MO item exactly as the gateway sent it; attachment URLs are single-use and not for subscribers. Only its keys and attachment list when `omitted` lists `raw`.',
  ),
  payloadRef: OptionalPayloadRefSchema,
  omitted: OmittedSchema.optional(),
});
export type InboundMessageData = z.infer<typeof InboundMessageDataSchema>;

export const WebhookKindSchema = z.enum(['report', 'mo']);

export const UnrecognisedBodyDataSchema = z.strictObject({
  webhook: WebhookKindSchema,
  bodySha256: z.string().describe('SHA-256 of the body, hex.'),
  topLevelKeys: z
    .array(z.string())
    .describe('Top-level keys of the body, to route on without parsing it.'),
  body: z
    .string()
    .describe(
      'The body as received (UTF-8 text), cut at 64 KiB of JSON; kept whole in the event table, or in S3 (`payloadRef`) when larger.',
    ),
  truncated: z.boolean(),
  payloadRef: OptionalPayloadRefSchema,
});
export type UnrecognisedBodyData = z.infer<typeof UnrecognisedBodyDataSchema>;

export const QuarantinedItemDataSchema = z.strictObject({
  webhook: WebhookKindSchema,
  reason: z.string(),
  index: z
    .number()
    .int()
    .nullable()
    .describe('Position of the item in its list; `null` when the whole body was quarantined.'),
  bodySha256: z.string(),
  raw: z
    .string()
    .describe(
      'The item (or body) as received, as text, cut at 64 KiB of JSON; kept whole in the event table, or in S3 (`payloadRef`) when larger.',
    ),
  truncated: z.boolean(),
  payloadRef: OptionalPayloadRefSchema,
});
export type QuarantinedItemData = z.infer<typeof QuarantinedItemDataSchema>;

export const SendChannelSchema = z.enum(SEND_CHANNELS);

const RecipientFields = {
  cliKey: z.string().describe('Your key of this recipient, from `recvInfoLst[].cliKey`.'),
  channel: SendChannelSchema,
  phone: z.string().nullable().describe('Recipient number, when the request had one.'),
  sqsMessageId: z.string().describe('The queue message this recipient came from.'),
};

export const MessageAcceptedDataSchema = z.strictObject({
  ...RecipientFields,
  msgKey: z
    .string()
    .nullable()
    .describe(
      "The gateway's message key; `null` when the gateway answered that it had already accepted this `cliKey`.",
    ),
  alreadyAccepted: z
    .boolean()
    .describe(
      'True when the gateway answered the duplicate family (29005, 29023, 29024): accepted by an earlier call.',
    ),
  code: z.string().describe("The gateway's per-recipient code."),
});
export type MessageAcceptedData = z.infer<typeof MessageAcceptedDataSchema>;

export const MessageRejectedDataSchema = z.strictObject({
  ...RecipientFields,
  code: z.string().describe("The gateway's code (per recipient or for the whole request)."),
  message: z.string().describe("The gateway's message."),
  category: z
    .enum(['permanent', 'retries-exhausted', 'not-sent'])
    .describe(
      'permanent: the gateway refused it and would again; retries-exhausted: retryable failures until the queue gave up; not-sent: the last attempt got no answer and the status query shows the gateway never accepted this cliKey (code INVALID_KEY), so it was not sent and may be sent again, under a new cliKey.',
    ),
});
export type MessageRejectedData = z.infer<typeof MessageRejectedDataSchema>;

export const MessageScheduledDataSchema = z.strictObject({
  ...RecipientFields,
  webReqId: z
    .string()
    .describe("The gateway's id of the scheduled request (one for all its recipients)."),
  regDt: z.string().nullable().describe('When the gateway registered the request (KST, as sent).'),
  scheduledFor: IsoDateTime.nullable().describe('`resvReqDt` in UTC.'),
});
export type MessageScheduledData = z.infer<typeof MessageScheduledDataSchema>;

export const SendRejectedDataSchema = z.strictObject({
  channel: z
    .string()
    .nullable()
    .describe('The `channel` of the message, when it had a readable one.'),
  cliKeys: z.array(z.string()).describe('Every `cliKey` found in the message.'),
  problems: z
    .array(z.strictObject({ path: z.string(), message: z.string() }))
    .describe('Every problem, each with its JSON path (`$.recvInfoLst[3].cliKey`).'),
  sqsMessageId: z.string(),
  body: z.string().describe('The queue message as received, cut at 64 KiB.'),
  truncated: z.boolean(),
});
export type SendRejectedData = z.infer<typeof SendRejectedDataSchema>;

export const InboundAttachmentStoredDataSchema = z.strictObject({
  moKey: z.string(),
  index: z.number().int().min(0).describe('Position of the attachment in the message (0-based).'),
  name: z.string().nullable().describe('`contentName` as the gateway gave it.'),
  contentType: z.string().describe('The media type the gateway served the file with.'),
  sizeBytes: z.number().int().min(0),
  sha256: z.string().describe('SHA-256 of the stored bytes, hex.'),
  s3: z
    .strictObject({ bucket: z.string(), key: z.string() })
    .describe('Where the file is now (private, encrypted).'),
  source: z.enum(['content-url', 'file-endpoint']).describe('Which gateway download worked.'),
});
export type InboundAttachmentStoredData = z.infer<typeof InboundAttachmentStoredDataSchema>;

export const InboundAttachmentLostDataSchema = z.strictObject({
  moKey: z.string(),
  index: z.number().int().min(0),
  name: z.string().nullable(),
  reason: z
    .string()
    .describe(
      'The last download failure of each source (`content-url: …; file-endpoint: …`). A content URL msgbridge would not fetch reads `content-url: refused …` with why: not https, not a gateway host, credentials in the URL, a redirect elsewhere, or a private, loopback or link-local address.',
    ),
  attempts: z.number().int().min(0),
  receivedAt: IsoDateTime.describe(
    'When the inbound message arrived; the gateway keeps files 7 days from then.',
  ),
});
export type InboundAttachmentLostData = z.infer<typeof InboundAttachmentLostDataSchema>;

export const MessageStatusUnavailableDataSchema = z.strictObject({
  cliKey: z.string(),
  msgKey: z.string().nullable(),
  status: z
    .enum(['OVER_DATE', 'INVALID_KEY'])
    .describe(
      'OVER_DATE: older than the 90-day query range; INVALID_KEY: the gateway does not know the key.',
    ),
  acceptedAt: IsoDateTime.nullable().describe(
    'When the gateway accepted the recipient, as recorded by send-messages.',
  ),
});
export type MessageStatusUnavailableData = z.infer<typeof MessageStatusUnavailableDataSchema>;

const KstDateSchema = z.iso.date();
const CountSchema = z.number().nullable();

export const TrackingUrlStatisticsDataSchema = z.strictObject({
  date: KstDateSchema.describe('The Korean (KST) calendar day the figures are for.'),
  urlId: z.string().describe("The gateway's id of the tracking URL."),
  title: z.string().nullable(),
  orgUrl: z.string().nullable().describe('Where the short URL leads.'),
  sentOnDate: z
    .array(
      z.strictObject({
        channel: z.string().nullable(),
        sent: CountSchema.describe('Messages sent with the URL that day (`totCnt`).'),
        clicked: CountSchema.describe('How many of those were opened so far (`conCnt`).'),
        clickThroughRate: z
          .string()
          .nullable()
          .describe('`clickThroughRate` as the gateway wrote it (a percentage such as `"12.50"`).'),
      }),
    )
    .describe('`stat/url/channel` for the day (measured by send date), one entry per channel.'),
  clicksOnDate: z
    .array(
      z.strictObject({
        channel: z.string().nullable(),
        clicks: CountSchema.describe('Clicks that day (`sumCnt`).'),
        average: CountSchema.describe('`avgCnt` as the gateway computes it.'),
      }),
    )
    .describe('`stat/url/clickDay` for the day (measured by click date), one entry per channel.'),
  totals: z
    .strictObject({
      sent: z.number().describe('Sum of `sentOnDate[].sent`.'),
      clicked: z.number().describe('Sum of `sentOnDate[].clicked`.'),
      clicks: z.number().describe('Sum of `clicksOnDate[].clicks`.'),
    })
    .describe('Sums over the channels; a missing count counts as 0.'),
});
export type TrackingUrlStatisticsData = z.infer<typeof TrackingUrlStatisticsDataSchema>;

export const MessengerStatisticNameSchema = z.enum(
  Object.keys(MESSENGER_STATS) as [
    keyof typeof MESSENGER_STATS,
    ...(keyof typeof MESSENGER_STATS)[],
  ],
);

export const MessengerStatisticsDataSchema = z.strictObject({
  statistic: MessengerStatisticNameSchema.describe(
    'Which read/click statistic (spec 02 §4.5): `channelNoticeRead` is `/msgr/v2/stat/msgrChId/noticeRead`, `templateBrandClick` is `/msgr/v2/stat/template/brandClick`, and so on.',
  ),
  msgrChId: z.string().describe('The messenger channel.'),
  date: KstDateSchema.describe(
    'The KST day of the export run that collected the figures (the day before the run).',
  ),
  sendDate: KstDateSchema.describe('The send date asked for (`date` of the query).'),
  elapsedDay: z
    .int()
    .min(0)
    .max(2)
    .describe(
      'Days elapsed since `sendDate` (`elapsedDay` of the query): `date` minus `sendDate`.',
    ),
  part: z
    .int()
    .min(1)
    .describe('Which part of the answer, when its rows are split over several events.'),
  parts: z
    .int()
    .min(1)
    .describe('How many parts the answer was split into (at most 100 rows each).'),
  rows: z
    .array(z.record(z.string(), z.unknown()))
    .describe(
      "The gateway's items as it sent them (dimensions such as `messageType`, `templateCode`, `chatBubbleType`, and the counts, read as numbers); unknown fields are kept.",
    ),
});
export type MessengerStatisticsData = z.infer<typeof MessengerStatisticsDataSchema>;

/** Every event type: detail-type, data schema. */
export const EVENT_TYPES = {
  deliveryReport: { detailType: 'Delivery Report Received', data: DeliveryReportDataSchema },
  inboundMessage: { detailType: 'Inbound Message Received', data: InboundMessageDataSchema },
  unrecognisedBody: {
    detailType: 'Unrecognised Inbound Body Received',
    data: UnrecognisedBodyDataSchema,
  },
  quarantinedItem: { detailType: 'Item Quarantined', data: QuarantinedItemDataSchema },
  messageAccepted: { detailType: 'Message Accepted', data: MessageAcceptedDataSchema },
  messageRejected: { detailType: 'Message Rejected', data: MessageRejectedDataSchema },
  messageScheduled: { detailType: 'Message Scheduled', data: MessageScheduledDataSchema },
  sendRejected: { detailType: 'Send Rejected', data: SendRejectedDataSchema },
  inboundAttachmentStored: {
    detailType: 'Inbound Attachment Stored',
    data: InboundAttachmentStoredDataSchema,
  },
  inboundAttachmentLost: {
    detailType: 'Inbound Attachment Lost',
    data: InboundAttachmentLostDataSchema,
  },
  messageStatusUnavailable: {
    detailType: 'Message Status Unavailable',
    data: MessageStatusUnavailableDataSchema,
  },
  trackingUrlStatistics: {
    detailType: 'Tracking Url Statistics Collected',
    data: TrackingUrlStatisticsDataSchema,
  },
  messengerStatistics: {
    detailType: 'Messenger Statistics Collected',
    data: MessengerStatisticsDataSchema,
  },
} as const;
export type EventTypeName = keyof typeof EVENT_TYPES;

export const eventDetailSchema = <D extends z.ZodType>(data: D) =>
  z.strictObject({ metadata: EventMetadataSchema, data });
