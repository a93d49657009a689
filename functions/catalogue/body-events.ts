import * as z from '../../gateway/schemas/zod.ts';
import { lazily } from '../commons/helpers/lazily.ts';
import { eventType, optionalPayloadRefSchema, WebhookKindSchema } from './catalogue.ts';

/*
 * The events of what could not be read: a webhook body that is no report or MO list, and an item
 * or body quarantined. A module of their own, imported by the code that builds them
 * (`functions/received-items/body-records.ts`), which a receiver loads only for the first such
 * body: their schemas are not read at a cold start (docs/performance.md, `cold-start`).
 */

const unrecognisedBodyDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    webhook: WebhookKindSchema,
    bodySha256: z.string().check(z.describe('SHA-256 of the body, hex.')),
    topLevelKeys: z
      .array(z.string())
      .check(z.describe('Top-level keys of the body, to route on without parsing it.')),
    body: z
      .string()
      .check(
        z.describe(
          'The body as received (UTF-8 text), cut at 64 KiB of JSON; kept whole in the event table, or in S3 (`payloadRef`) when larger.',
        ),
      ),
    truncated: z.boolean(),
    payloadRef: optionalPayloadRefSchema(),
  }),
);
export type UnrecognisedBodyData = z.infer<ReturnType<typeof unrecognisedBodyDataSchema>>;

const quarantinedItemDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    webhook: WebhookKindSchema,
    reason: z.string(),
    index: z
      .nullable(z.int())
      .check(
        z.describe('Position of the item in its list; `null` when the whole body was quarantined.'),
      ),
    bodySha256: z.string(),
    raw: z
      .string()
      .check(
        z.describe(
          'The item (or body) as received, as text, cut at 64 KiB of JSON; kept whole in the event table, or in S3 (`payloadRef`) when larger.',
        ),
      ),
    truncated: z.boolean(),
    payloadRef: optionalPayloadRefSchema(),
  }),
);
export type QuarantinedItemData = z.infer<ReturnType<typeof quarantinedItemDataSchema>>;

export const unrecognisedBody = /* @__PURE__ */ eventType(
  'unrecognisedBody',
  'Unrecognised Inbound Body Received',
  unrecognisedBodyDataSchema,
);
export const quarantinedItem = /* @__PURE__ */ eventType(
  'quarantinedItem',
  'Item Quarantined',
  quarantinedItemDataSchema,
);
