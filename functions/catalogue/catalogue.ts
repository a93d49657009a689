import * as z from '../../gateway/schemas/zod.ts';
import { lazily } from '../commons/helpers/lazily.ts';
import { SEND_CHANNELS } from '../send-contract/channels.ts';
import { MESSAGE_STATUSES } from './message-status.ts';
import {
  messengerStatisticsDataSchema,
  trackingUrlStatisticsDataSchema,
} from './statistics-events.ts';

/**
 * The public event contract. Every event msgbridge puts on the bus has
 * `detail = { metadata, data }`; these schemas are the source of truth for the JSON Schema files
 * and the catalogue page generated from them. Detail-types are past tense.
 *
 * Each schema is built on first use, not when a Lambda imports the catalogue: a function builds
 * only the events it emits (a receiver one or three of the thirteen), which is most of what the
 * catalogue cost its import (docs/performance.md, `cold-start`). A schema is built once per
 * container and then shared, so every caller sees the same instance. And a bundle holds only the
 * events its function names (`eventType` below): a receiver's carries four of the thirteen.
 */

const isoDateTime = /* @__PURE__ */ lazily(() => z.iso.datetime({ offset: true }));

/** How an item reached msgbridge. */
export const ViaSchema = z.enum([
  'webhook',
  'polling',
  'status-query',
  'send-queue',
  'statistics-query',
]);
export type Via = z.infer<typeof ViaSchema>;

const eventMetadataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    id: z
      .uuid()
      .check(
        z.describe(
          'Ours, stable across redeliveries and replays: derived from the idempotency key.',
        ),
      ),
    type: z.string().check(z.describe('The detail-type.')),
    version: z.literal('1').check(z.describe('Version of the `data` schema of this type.')),
    occurredAt: isoDateTime().check(
      z.describe("When the fact happened (the gateway's time where it gives one), UTC."),
    ),
    receivedAt: isoDateTime().check(z.describe('When msgbridge received it, UTC.')),
    via: ViaSchema,
    idempotencyKey: z
      .string()
      .check(
        z.describe(
          'What makes this event unique: `report:<msgKey>:<resultCode>:<ch>`, `mo:<moKey>`, …, each part escaped (`%` `%25`, `#` `%23`, `:` `%3A`, an unpaired surrogate `%uD800`, an absent `ch` `-` and the string `-` `%2D`), so two events never share one.',
        ),
      ),
  }),
);
export type EventMetadata = z.infer<ReturnType<typeof eventMetadataSchema>>;

/** retryable: sending again later may work; permanent: it will not; uncertain: it may still arrive. */
export const FailureCategorySchema = z.enum(['retryable', 'permanent', 'uncertain']);
export type FailureCategory = z.infer<typeof FailureCategorySchema>;

const gatewayItemSchema = /* @__PURE__ */ lazily(() => z.record(z.string(), z.unknown()));

const PAYLOAD_REF_DESCRIPTION =
  'The body exactly as received (a webhook body, a polled page, or a rejected queue message), as a private S3 object encrypted with the stack key. Present only when this event or its table item could not carry everything.';

/** Where a body too large for an event or a table item is kept (the claim check). */
export const payloadRefSchema = /* @__PURE__ */ lazily(() =>
  z
    .strictObject({
      bucket: z.string(),
      key: z.string(),
      bytes: z.int().check(z.minimum(0), z.describe('Size of the object in bytes.')),
      sha256: z.string().check(z.describe('SHA-256 of the object, hex.')),
      item: z
        .nullable(z.int().check(z.minimum(0)))
        .check(
          z.describe(
            "This item's position in the body's list; `null` when the object is all of it.",
          ),
        ),
    })
    .check(z.describe(PAYLOAD_REF_DESCRIPTION)),
);
export type PayloadRef = z.infer<ReturnType<typeof payloadRefSchema>>;

/** As a field of `data`: absent or `null` unless the claim check was used. */
export const optionalPayloadRefSchema = /* @__PURE__ */ lazily(() =>
  z.optional(z.nullable(payloadRefSchema())).check(z.describe(PAYLOAD_REF_DESCRIPTION)),
);

const omittedSchema = /* @__PURE__ */ lazily(() =>
  z
    .array(z.string())
    .check(
      z.describe(
        'Fields of `data` left out (`raw` keeps only the keys, others are `null` or `[]`) because the event would exceed the 256 KiB bus limit; read them from `payloadRef`. Absent when nothing was left out.',
      ),
    ),
);

const deliveryReportDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    msgKey: z.string().check(z.describe("The gateway's message key.")),
    cliKey: z.string().check(z.describe('Your key, as given in the send request.')),
    delivered: z
      .boolean()
      .check(
        z.describe(
          "True when this report's `resultCode` is `10000`. Says what this report says, not what became of the message: act on `messageStatus`.",
        ),
      ),
    messageStatus: z
      .enum(MESSAGE_STATUSES)
      .check(
        z.describe(
          "The message's status when this event was published: the highest (uncertain < failed < delivered) over this report and every report of the message stored before it — `delivered` once any said `10000`, else `failed` once one gave a final failure, else `uncertain` (`32114`) — read when the event is published, so a report stored after a delivery says `delivered` whatever its own result. EventBridge keeps no order between events: keep the highest status seen per `msgKey`.",
        ),
      ),
    resultCode: z.string().check(z.describe('The delivery result code (`10000` = delivered).')),
    resultCodeDesc: z.nullable(z.string()).check(z.describe("The gateway's text for the result.")),
    failureCategory: z
      .nullable(FailureCategorySchema)
      .check(z.describe('Only when not delivered.')),
    channel: z
      .nullable(z.string())
      .check(z.describe('The channel that finally delivered (or last tried).')),
    fallbackReasons: z
      .array(
        z.strictObject({
          channel: z.nullable(z.string()),
          resultCode: z.nullable(z.string()),
          resultDesc: z.nullable(z.string()),
          telco: z.nullable(z.string()),
        }),
      )
      .check(
        z.describe(
          'Why earlier channels failed, when the gateway fell back (e.g. RCS `54002` → SMS).',
        ),
      ),
    telco: z
      .nullable(z.string())
      .check(z.describe('Carrier (text and RCS); the relaying dealer for messenger messages.')),
    productCode: z
      .nullable(z.string())
      .check(
        z.describe(
          'The billed product (`SMS`, `LMS`, `MMS`, `ITMPL`, `CHAT`, `BRDF`, `BRDNF`, `KFRT1`, …).',
        ),
      ),
    reportedAt: z
      .nullable(isoDateTime())
      .check(
        z.describe(
          "Result time in UTC; `null` when the gateway's value could not be read (kept in `reportedAtKst`).",
        ),
      ),
    reportedAtKst: z
      .nullable(z.string())
      .check(
        z.describe(
          "The gateway's own value, as sent: usually zone-less KST, sometimes with a zone (field notes).",
        ),
      ),
    phone: z.nullable(z.string()).check(z.describe('Recipient number (webhook reports only).')),
    isBi: z.nullable(z.boolean()).check(z.describe('Two-way RCS message.')),
    userCustomFields: z
      .nullable(z.record(z.string(), z.unknown()))
      .check(
        z.describe('Your custom fields from the send request, when the webhook option is on.'),
      ),
    raw: gatewayItemSchema().check(
      z.describe(
        'The report item exactly as the gateway sent it, unknown fields included (only its keys when `omitted` lists `raw`).',
      ),
    ),
    payloadRef: optionalPayloadRefSchema(),
    omitted: z.optional(omittedSchema()),
  }),
);
export type DeliveryReportData = z.infer<ReturnType<typeof deliveryReportDataSchema>>;

const inboundMessageDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    moKey: z.string().check(z.describe("The gateway's key of the inbound message.")),
    sender: z.nullable(z.string()).check(z.describe("The end user's phone (`moCallback`).")),
    receivingNumber: z.nullable(z.string()).check(z.describe('Our receiving number (`moNumber`).')),
    type: z
      .nullable(z.string())
      .check(z.describe('`SMSMO`, `LMSMO`, `MMSMO`, `RCSMO`, or whatever the gateway sends.')),
    text: z.nullable(z.string()).check(z.describe('The message text (`moMsg`).')),
    title: z
      .nullable(z.string())
      .check(z.describe('Title of an LMS, MMS or RCS message (`moTitle`).')),
    telco: z.nullable(z.string()),
    productCode: z.nullable(z.string()),
    receivedAtGateway: z.nullable(isoDateTime()),
    receivedAtGatewayKst: z.nullable(z.string()),
    attachmentCount: z.int().check(z.minimum(0)),
    attachments: z.array(
      z.strictObject({
        name: z.nullable(z.string()),
        sizeBytes: z.nullable(z.number()),
        extension: z.nullable(z.string()),
      }),
    ),
    raw: gatewayItemSchema().check(
      z.describe(
        'The MO item exactly as the gateway sent it; attachment URLs are single-use and not for subscribers. Only its keys and attachment list when `omitted` lists `raw`.',
      ),
    ),
    payloadRef: optionalPayloadRefSchema(),
    omitted: z.optional(omittedSchema()),
  }),
);
export type InboundMessageData = z.infer<ReturnType<typeof inboundMessageDataSchema>>;

export const WebhookKindSchema = z.enum(['report', 'mo']);

const sendChannelSchema = /* @__PURE__ */ lazily(() => z.enum(SEND_CHANNELS));

const recipientFields = /* @__PURE__ */ lazily(() => ({
  cliKey: z.string().check(z.describe('Your key of this recipient, from `recvInfoLst[].cliKey`.')),
  channel: sendChannelSchema(),
  phone: z.nullable(z.string()).check(z.describe('Recipient number, when the request had one.')),
  sqsMessageId: z.string().check(z.describe('The queue message this recipient came from.')),
}));

const messageAcceptedDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    ...recipientFields(),
    msgKey: z
      .nullable(z.string())
      .check(
        z.describe(
          "The gateway's message key; `null` when the gateway answered that it had already accepted this `cliKey`.",
        ),
      ),
    alreadyAccepted: z
      .boolean()
      .check(
        z.describe(
          'True when the gateway answered the duplicate family (29005, 29023, 29024): accepted by an earlier call.',
        ),
      ),
    code: z.string().check(z.describe("The gateway's per-recipient code.")),
  }),
);
export type MessageAcceptedData = z.infer<ReturnType<typeof messageAcceptedDataSchema>>;

const messageRejectedDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    ...recipientFields(),
    code: z
      .string()
      .check(z.describe("The gateway's code (per recipient or for the whole request).")),
    message: z.string().check(z.describe("The gateway's message.")),
    category: z
      .enum(['permanent', 'retries-exhausted', 'not-sent'])
      .check(
        z.describe(
          'permanent: the gateway refused it and would again; retries-exhausted: retryable failures until the queue gave up; not-sent: the last attempt got no answer and the status query shows the gateway never accepted this cliKey (code INVALID_KEY), so it was not sent and may be sent again, under a new cliKey.',
        ),
      ),
  }),
);
export type MessageRejectedData = z.infer<ReturnType<typeof messageRejectedDataSchema>>;

const messageScheduledDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    ...recipientFields(),
    webReqId: z
      .string()
      .check(z.describe("The gateway's id of the scheduled request (one for all its recipients).")),
    regDt: z
      .nullable(z.string())
      .check(z.describe('When the gateway registered the request (KST, as sent).')),
    scheduledFor: z.nullable(isoDateTime()).check(z.describe('`resvReqDt` in UTC.')),
  }),
);
export type MessageScheduledData = z.infer<ReturnType<typeof messageScheduledDataSchema>>;

const sendRejectedDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    channel: z
      .nullable(z.string())
      .check(z.describe('The `channel` of the message, when it had a readable one.')),
    cliKeys: z
      .array(z.string())
      .check(
        z.describe(
          'The `cliKey`s found in the message, in order, as many as fit 16 KiB of JSON (`cliKeyCount` says how many there are).',
        ),
      ),
    cliKeyCount: z.int().check(z.minimum(0), z.describe('How many `cliKey`s the message has.')),
    problems: z
      .array(z.strictObject({ path: z.string(), message: z.string() }))
      .check(
        z.describe(
          'The problems, each with its JSON path (`$.recvInfoLst[3].cliKey`), as many as fit 32 KiB of JSON (`problemCount` says how many there are).',
        ),
      ),
    problemCount: z.int().check(z.minimum(1), z.describe('How many problems the message has.')),
    sqsMessageId: z.string(),
    body: z
      .string()
      .check(
        z.describe(
          'The queue message as received, cut at 64 KiB of JSON; kept whole in the event table, or in S3 (`payloadRef`) when larger.',
        ),
      ),
    truncated: z.boolean(),
    reusedCliKey: z
      .optional(
        z.strictObject({
          cliKey: z.string(),
          sqsMessageId: z
            .string()
            .check(
              z.describe(
                'The queue message that used the cliKey first, with other content: the one sent.',
              ),
            ),
        }),
      )
      .check(
        z.describe(
          'Present when the message was refused for reusing a `cliKey` another queue message had already claimed with other content (a producer error, not a retry: a retry with the same content is skipped silently).',
        ),
      ),
    payloadRef: optionalPayloadRefSchema(),
  }),
);
export type SendRejectedData = z.infer<ReturnType<typeof sendRejectedDataSchema>>;

const inboundAttachmentStoredDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    moKey: z.string(),
    index: z
      .int()
      .check(z.minimum(0), z.describe('Position of the attachment in the message (0-based).')),
    name: z.nullable(z.string()).check(z.describe('`contentName` as the gateway gave it.')),
    contentType: z.string().check(z.describe('The media type the gateway served the file with.')),
    sizeBytes: z.int().check(z.minimum(0)),
    sha256: z.string().check(z.describe('SHA-256 of the stored bytes, hex.')),
    s3: z
      .strictObject({ bucket: z.string(), key: z.string() })
      .check(z.describe('Where the file is now (private, encrypted).')),
    source: z
      .enum(['content-url', 'file-endpoint'])
      .check(z.describe('Which gateway download worked.')),
  }),
);
export type InboundAttachmentStoredData = z.infer<
  ReturnType<typeof inboundAttachmentStoredDataSchema>
>;

const inboundAttachmentLostDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    moKey: z.string(),
    index: z.int().check(z.minimum(0)),
    name: z.nullable(z.string()),
    reason: z
      .string()
      .check(
        z.describe(
          'The last download failure of each source (`content-url: …; file-endpoint: …`). A content URL msgbridge would not fetch reads `content-url: refused …` with why: not https, not a gateway host, credentials in the URL, a redirect elsewhere, or a private, loopback or link-local address.',
        ),
      ),
    attempts: z.int().check(z.minimum(0)),
    receivedAt: isoDateTime().check(
      z.describe('When the inbound message arrived; the gateway keeps files 7 days from then.'),
    ),
  }),
);
export type InboundAttachmentLostData = z.infer<ReturnType<typeof inboundAttachmentLostDataSchema>>;

const messageStatusUnavailableDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    cliKey: z.string(),
    msgKey: z.nullable(z.string()),
    status: z
      .enum(['OVER_DATE', 'INVALID_KEY'])
      .check(
        z.describe(
          'OVER_DATE: older than the 90-day query range; INVALID_KEY: the gateway does not know the key.',
        ),
      ),
    acceptedAt: z
      .nullable(isoDateTime())
      .check(z.describe('When the gateway accepted the recipient, as recorded by send-messages.')),
  }),
);
export type MessageStatusUnavailableData = z.infer<
  ReturnType<typeof messageStatusUnavailableDataSchema>
>;

/** One event type of the catalogue: its name here, its detail-type and its `data` schema. */
export interface EventType<
  N extends string = string,
  D extends string = string,
  S extends z.core.SomeType = z.core.SomeType,
> {
  readonly name: N;
  readonly detailType: D;
  /** Built on first read, once per container. */
  readonly data: S;
}

/**
 * An event type whose schema is built on first read. Each is a constant of its own, so that a
 * bundle holds the schemas of the events its function emits and not the others: a function names
 * the types it builds (`buildEventDetail(deliveryReport, …)`), and esbuild leaves out every type
 * and schema no module of the bundle names (this function and each `lazily` call are marked free
 * of side effects).
 */
/* @__NO_SIDE_EFFECTS__ */
export function eventType<
  const N extends string,
  const D extends string,
  S extends z.core.SomeType,
>(name: N, detailType: D, data: () => S): EventType<N, D, S> {
  return {
    name,
    detailType,
    get data() {
      return data();
    },
  };
}

export const deliveryReport = eventType(
  'deliveryReport',
  'Delivery Report Received',
  deliveryReportDataSchema,
);
export const inboundMessage = eventType(
  'inboundMessage',
  'Inbound Message Received',
  inboundMessageDataSchema,
);
export const messageAccepted = eventType(
  'messageAccepted',
  'Message Accepted',
  messageAcceptedDataSchema,
);
export const messageRejected = eventType(
  'messageRejected',
  'Message Rejected',
  messageRejectedDataSchema,
);
export const messageScheduled = eventType(
  'messageScheduled',
  'Message Scheduled',
  messageScheduledDataSchema,
);
export const sendRejected = eventType('sendRejected', 'Send Rejected', sendRejectedDataSchema);
export const inboundAttachmentStored = eventType(
  'inboundAttachmentStored',
  'Inbound Attachment Stored',
  inboundAttachmentStoredDataSchema,
);
export const inboundAttachmentLost = eventType(
  'inboundAttachmentLost',
  'Inbound Attachment Lost',
  inboundAttachmentLostDataSchema,
);
export const messageStatusUnavailable = eventType(
  'messageStatusUnavailable',
  'Message Status Unavailable',
  messageStatusUnavailableDataSchema,
);
export const trackingUrlStatistics = eventType(
  'trackingUrlStatistics',
  'Tracking Url Statistics Collected',
  trackingUrlStatisticsDataSchema,
);
export const messengerStatistics = eventType(
  'messengerStatistics',
  'Messenger Statistics Collected',
  messengerStatisticsDataSchema,
);

export const eventDetailSchema = <D extends z.core.SomeType>(data: D) =>
  z.strictObject({ metadata: eventMetadataSchema(), data });
