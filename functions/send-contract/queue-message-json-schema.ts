import * as z from '../../gateway/schemas/zod.ts';
import type { SendChannel } from './channels.ts';
import {
  ENVELOPES,
  type PlainChannel,
  type RcsVariant,
  REQUEST_SCHEMAS,
  TEXT_VARIANTS,
} from './queue-message.ts';

type JsonSchema = z.core.JSONSchema.JSONSchema;

export interface SendMessageJsonSchema extends JsonSchema {
  $schema: 'https://json-schema.org/draft/2020-12/schema';
  oneOf: JsonSchema[];
}

interface Branch {
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodMiniType;
  readonly envelope: Record<string, JsonSchema>;
  readonly required: readonly string[];
  readonly extra?: JsonSchema;
}

/** A nested schema must not repeat `$schema`: only the root declares the dialect. */
const withoutDialect = ({ $schema: _, ...schema }: JsonSchema): JsonSchema => schema;

const TEXT_VARIANT_JSON: JsonSchema = {
  type: 'string',
  enum: [...TEXT_VARIANTS],
  default: 'xms',
  description: '`xms` = {send_url}/xms/… (default); `msg` = {api_url}/msg/v1/…',
};

const branchesOfContract = (): Branch[] => {
  const channel = (name: SendChannel): JsonSchema => ({ const: name });
  const rcs = (variant: RcsVariant, path: string): Branch => ({
    title: `rcs (${variant})`,
    description: `RCS through ${path} (spec 01 §4.5).`,
    schema: REQUEST_SCHEMAS.rcs[variant],
    envelope: { channel: channel('rcs'), variant: { const: variant } },
    required: ['channel', 'variant'],
  });
  const plain = (name: PlainChannel, description: string): Branch => ({
    title: name,
    description,
    schema: REQUEST_SCHEMAS[name],
    envelope: { channel: channel(name) },
    required: ['channel'],
  });
  return [
    {
      title: 'sms',
      description: 'SMS (spec 01 §4.3). msg max 90 bytes counted as CP949.',
      schema: REQUEST_SCHEMAS.sms,
      envelope: { channel: channel('sms'), variant: TEXT_VARIANT_JSON },
      required: ['channel'],
    },
    {
      title: 'mms',
      description:
        'MMS (spec 01 §4.4). title max 40, msg max 2000 bytes counted as CP949. S3 `attachments` are sent through {send_url}/xms/mms/file/v1 and exclude `fileIdLst`.',
      schema: REQUEST_SCHEMAS.mms,
      envelope: {
        channel: channel('mms'),
        variant: TEXT_VARIANT_JSON,
        attachments: withoutDialect(
          z.toJSONSchema(ENVELOPES.mms().shape.attachments.def.innerType, {
            io: 'input',
            target: 'draft-2020-12',
          }),
        ),
      },
      required: ['channel'],
      extra: { not: { required: ['attachments', 'fileIdLst'] } },
    },
    rcs('v1', '{api_url}/msg/v1/rcs'),
    rcs('v1.1', '{api_url}/msg/v1.1/rcs'),
    rcs('integrated', '{send_url}/rcs/v1.1 (header 0 only)'),
    plain('rcs-reply', 'Two-way RCS reply through {send_url}/rcs/bi/v1.1 (spec 01 §4.6).'),
    plain('push', 'Push through {api_url}/msg/v1/push (spec 01 §4.7).'),
    plain(
      'messenger-notice',
      'Messenger notification through {send_url}/msgr/notice/v1.2 (spec 01 §4.8).',
    ),
    plain(
      'brand-template',
      'Brand message, template type, through {send_url}/msgr/brand/tmplt/v1 (§4.9).',
    ),
    plain(
      'brand-free',
      'Brand message, free type, through {send_url}/msgr/brand/custom/v1 (§4.10).',
    ),
  ];
};

/**
 * The queue message contract as JSON Schema (draft 2020-12), one `oneOf` branch per channel and
 * per RCS variant, each the channel's request schema with the envelope fields added. It
 * describes structure only: byte counts, cross-field rules, the scheduling horizon and template
 * variables are checked by {@link parseSendMessage} (`msgbridge validate`).
 */
export const sendMessageJsonSchema = (): SendMessageJsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'msgbridge send queue message',
  description:
    'One gateway send request (spec 01 §4.3–4.10, fields as the spec names them) plus `channel` and, where the spec has several paths, `variant`. Structure only: run `msgbridge validate` for every rule.',
  oneOf: branchesOfContract().map((branch) => {
    const request = withoutDialect(
      z.toJSONSchema(branch.schema, { io: 'input', target: 'draft-2020-12' }),
    );
    return {
      title: branch.title,
      description: branch.description,
      ...request,
      properties: { ...branch.envelope, ...request.properties },
      required: [...branch.required, ...(request.required ?? [])],
      ...branch.extra,
    };
  }),
});
