import { MoWebhookBodySchema } from '../gateway/schemas/mo.ts';
import { ReportWebhookBodySchema } from '../gateway/schemas/reports.ts';
import * as z from '../gateway/schemas/zod.ts';

/*
 * The OpenAPI document of the two webhook routes (docs/openapi.json): their path with the secret
 * segment, the bodies the gateway posts, as the receivers' own zod schemas read them (the input
 * side: what may arrive, before the lenient reading turns `"3"` into 3 and `null` lists into
 * `[]`), and every answer of the receivers. A unit test regenerates it and replays each documented
 * answer against the real handler.
 */

export const OPENAPI_PATH = 'docs/openapi.json';

/** The version of the webhook contract this document describes (not the package's version). */
const CONTRACT_VERSION = '1.0.0';

/** A body schema as a component: zod's JSON Schema (2020-12, OpenAPI 3.1's dialect) of its input. */
const bodySchema = (schema: z.ZodMiniType, description: string) => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' });
  return { ...rest, description };
};

/** An answer whose body is `example` (JSON), described by a schema naming its exact values. */
const jsonAnswer = (description: string, example: Record<string, string>) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(example).map(([field, value]) => [
            field,
            { type: 'string', const: value },
          ]),
        ),
        required: Object.keys(example),
      },
      example,
    },
  },
});

/** The answers both routes give before any body is read, in the order the receiver checks. */
const REFUSALS = {
  '403': jsonAnswer(
    "The source address is outside `webhooks.allowedSourceCidrs`; nothing else is looked at. This is the receiver's answer on the function-URL front; on the REST API front the resource policy refuses the call before any Lambda runs, with API Gateway's own 403 body.",
    { message: 'Forbidden' },
  ),
  '404': jsonAnswer(
    'The secret segment is neither the current nor the previous webhook secret (compared in constant time), or the path is not this route. Nothing is stored.',
    { message: 'Not Found' },
  ),
  '413': jsonAnswer(
    'The receiver\'s answer to a body larger than `webhooks.maxBodyBytes`, a limit of the deployment\'s own below what can arrive (by default none): the body is neither stored nor quarantined, and the receiver logs an error with its size. A request too large for Lambda never reaches the receiver: Lambda refuses an event (the request as JSON, a body the function URL passes as binary base64-encoded) of 6 MiB or more before it runs, answered 413 by a function URL and 500 `{"message":"Internal server error"}` by the REST API, which also answers 413 itself to a body above 10 MB (docs/deploy.md, "Body size"). The gateway reads none of these as success.',
    { message: 'Payload Too Large' },
  ),
  '429': {
    description:
      "Throttled: above the receiver's reserved concurrency (`webhooks.receiverConcurrency`, function-URL front) or the stage throttle (REST API front). The gateway delivers again.",
  },
};

const SECRET_PARAMETER = {
  name: 'secret',
  in: 'path',
  required: true,
  description:
    'The webhook secret: the `current` value of the secret `WebhookSecretArn` (or, while it is being rotated, the `previous` one). Register the whole URL, secret included, in the gateway console; the outputs `ReportWebhookUrl` and `InboundWebhookUrl` show it as `<secret>`.',
  schema: { type: 'string', minLength: 1 },
};

/** Where a route is served: one function URL per receiver, or the REST API's stage. */
const serversOf = (output: string) => [
  {
    url: 'https://{urlId}.lambda-url.{region}.on.aws',
    description: `\`webhooks.front\` \`function-url\` (the default): this receiver's own function URL, the start of the output \`${output}\`.`,
    variables: {
      urlId: { default: 'url-id', description: "The function URL's id." },
      region: { default: 'ap-northeast-2', description: "The stack's region." },
    },
  },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
    description:
      '`webhooks.front` `rest-api`: the REST API stage (output `WebhookStageUrl`), shared by both routes.',
    variables: {
      apiId: { default: 'api-id', description: "The REST API's id." },
      region: { default: 'ap-northeast-2', description: "The stack's region." },
      stage: { default: 'v1', description: '`webhooks.stageName`.' },
    },
  },
];

const requestBody = (component: string) => ({
  required: true,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } },
});

/** The document, as an object. */
export const openApiDocument = () => ({
  openapi: '3.1.0',
  info: {
    title: 'msgbridge webhooks',
    version: CONTRACT_VERSION,
    description:
      'The two routes the messaging gateway posts to (spec 01 §6): delivery reports and inbound (MO) messages. Every body is kept: each valid item is stored once (a redelivered item is recognised and answered as stored); an item that fails the schema below, a body that is not JSON and a body of another shape are stored raw in quarantine and answered as success too, so that the gateway does not redeliver them forever. Only a failure of msgbridge\'s own storage is answered with "deliver again". Generated from the receivers\' zod schemas by `npm run docs:openapi`; do not edit by hand.',
  },
  paths: {
    '/webhooks/{secret}/report': {
      parameters: [{ $ref: '#/components/parameters/secret' }],
      servers: serversOf('ReportWebhookUrl'),
      post: {
        operationId: 'receiveReports',
        summary: 'Delivery reports',
        description:
          'Stores each delivery report of `rptLst` once (keyed by `msgKey`, result code and final channel), then answers. Each stored report becomes a "Delivery Report Received" event (docs/events.md).',
        requestBody: requestBody('ReportWebhookBody'),
        responses: {
          '200': jsonAnswer(
            'Every item is stored, was stored before (a redelivery), or is kept in quarantine.',
            { code: '10000', message: 'success' },
          ),
          '204': {
            description: 'The list is empty (`rptLst` is `[]` or `null`): nothing to store.',
          },
          '400': jsonAnswer(
            'A write failed (ours, transient): deliver the body again. Items stored before are recognised then and not stored twice.',
            { message: 'temporary storage failure' },
          ),
          ...REFUSALS,
        },
      },
    },
    '/webhooks/{secret}/mo': {
      parameters: [{ $ref: '#/components/parameters/secret' }],
      servers: serversOf('InboundWebhookUrl'),
      post: {
        operationId: 'receiveInbound',
        summary: 'Inbound (MO) messages',
        description:
          'Stores each message of `moLst` once (keyed by `moKey`), then answers with code `10000`. Each stored message becomes an "Inbound Message Received" event (docs/events.md); its attachments are fetched afterwards.',
        requestBody: requestBody('MoWebhookBody'),
        responses: {
          '200': jsonAnswer(
            'Every item is stored, was stored before (a redelivery), or is kept in quarantine; also for an empty list.',
            { code: '10000', message: 'success' },
          ),
          '500': jsonAnswer(
            'A write failed (ours, transient). The gateway delivers an MO body again on any code of 20000 and above; the status is 500 as well, for a gateway that reads only the status.',
            { code: '29999', message: 'temporary storage failure; deliver again' },
          ),
          ...REFUSALS,
        },
      },
    },
  },
  components: {
    parameters: { secret: SECRET_PARAMETER },
    schemas: {
      ReportWebhookBody: bodySchema(
        ReportWebhookBodySchema,
        'A report webhook body. Unknown fields are kept; `rptCnt` may be missing (the list is counted).',
      ),
      MoWebhookBody: bodySchema(
        MoWebhookBodySchema,
        'An MO webhook body. Unknown fields are kept; `moCnt` may be missing (the list is counted).',
      ),
    },
  },
});

/** `docs/openapi.json`, as committed. */
export const renderOpenApi = (): Record<string, string> => ({
  [OPENAPI_PATH]: `${JSON.stringify(openApiDocument(), null, 2)}\n`,
});
