import { RECONCILE_DEFAULTS } from '../functions/reconcile/reconcile-ports.ts';
import { SEND_CHANNELS, type SendChannel } from '../functions/send-contract/channels.ts';
import {
  CHANNEL_SPEC_SECTION,
  MAX_NESTING_LEVELS,
  SCHEDULE_HORIZON_DAYS,
} from '../functions/send-contract/queue-message.ts';
import { VARIABLE_SOURCES } from '../functions/send-contract/queue-message-checks.ts';
import { sendMessageJsonSchema } from '../functions/send-contract/queue-message-json-schema.ts';
import {
  MAX_MESSENGER_BUTTONS,
  MAX_MMS_FILES,
  MAX_RCS_BUTTONS,
  MAX_RECIPIENTS,
  MMS_MAX_BYTES,
  MMS_TITLE_MAX_BYTES,
  PUSH_EXT_MAX_BYTES,
  PUSH_MSG_MAX_CHARS,
  SEND_ENDPOINTS,
  SMS_MAX_BYTES,
} from '../gateway/schemas/index.ts';
import type * as z from '../gateway/schemas/zod.ts';
import {
  defaultSendConcurrency,
  MAX_DEFAULT_SEND_CONCURRENCY,
  MIN_SEND_CONCURRENCY,
  SENDER_RECIPIENTS_PER_SECOND,
} from '../lib/send-concurrency.ts';
import { EXAMPLES_VALID_AT, SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';

const UNKNOWN_AFTER_MINUTES = RECONCILE_DEFAULTS.unknownAfterMinutes;
const NOT_SENT_AFTER_MINUTES = RECONCILE_DEFAULTS.notSentAfterMinutes;

/*
 * docs/sending.md and docs/schemas/send-message.schema.json, generated from the contract in
 * functions/sending/queue-message*.ts and the examples in producer/examples.ts. `scripts/generate-sending-docs.ts` writes
 * them; a unit test fails when the committed files differ.
 */

export const SENDING_DOC_PATH = 'docs/sending.md';
export const SEND_MESSAGE_SCHEMA_PATH = 'docs/schemas/send-message.schema.json';

type JsonSchema = z.core.JSONSchema.JSONSchema;

type EndpointName = keyof typeof SEND_ENDPOINTS;

/** Each channel's endpoint by variant as the docs name it (`''`: a channel without variants). */
const ENDPOINTS_BY_CHANNEL: Readonly<Record<SendChannel, Readonly<Record<string, EndpointName>>>> =
  {
    sms: { '`xms` (default)': 'sms', '`msg`': 'smsLegacy' },
    mms: { '`xms` (default)': 'mms', '`msg`': 'mmsLegacy', 'with `attachments`': 'mmsMultipart' },
    rcs: { '`v1`': 'rcsV1', '`v1.1`': 'rcsV11', '`integrated`': 'rcsIntegrated' },
    'rcs-reply': { '': 'rcsReply' },
    push: { '': 'push' },
    'messenger-notice': { '': 'messengerNotice' },
    'brand-template': { '': 'brandTemplate' },
    'brand-free': { '': 'brandFree' },
  };

const ROUTES = (Object.keys(ENDPOINTS_BY_CHANNEL) as SendChannel[]).flatMap((channel) =>
  Object.entries(ENDPOINTS_BY_CHANNEL[channel]).map(([variant, endpoint]) => ({
    channel,
    variant,
    endpoint,
  })),
);

const HOSTS = { api: '{api_url}', send: '{send_url}' } as const;

/** Objects spec 01 §2 defines once and several channels use. */
const NAMED_OBJECTS: Record<string, string> = {
  recvInfoLst: 'RecvInfo (§2)',
  fbInfoLst: 'FbInfo (§2)',
  agency: 'Agency (§2)',
  chipList: 'RCS button (§2)',
};

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const code = (value: unknown): string => `\`${JSON.stringify(value)}\``;

/** A one-line description of a JSON Schema node: type and the limits JSON Schema can hold. */
const describe = (field: string, schema: JsonSchema, section: string): string => {
  if (schema.const !== undefined) return code(schema.const);
  if (schema.enum !== undefined) return schema.enum.map(code).join(' \\| ');
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.map((option) => describe(field, option, section)).join(' or ');
  }
  const limits: string[] = [];
  if (schema.minLength !== undefined && schema.minLength > 1)
    limits.push(`min ${schema.minLength}`);
  if (schema.maxLength !== undefined) {
    limits.push(`max ${schema.maxLength} ${schema.maxLength === 1 ? 'char' : 'chars'}`);
  }
  if (schema.pattern !== undefined) limits.push(`pattern \`${schema.pattern}\``);
  if (schema.minItems !== undefined && schema.minItems > 0) limits.push(`min ${schema.minItems}`);
  if (schema.maxItems !== undefined) limits.push(`max ${schema.maxItems}`);
  // zod writes the safe-integer range on every integer; it is no limit worth reading.
  if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) {
    limits.push(`≥ ${schema.minimum}`);
  }
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) {
    limits.push(`≤ ${schema.maximum}`);
  }
  let type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  const named =
    field === 'recvInfoLst' && section === CHANNEL_SPEC_SECTION.push
      ? 'push RecvInfo (§4.7: `cuid` required, `phone` optional)'
      : NAMED_OBJECTS[field];
  if (type === 'array' && isSchema(schema.items)) {
    const items = schema.items;
    if (named !== undefined) type = `array of ${named}`;
    else if (items.type === 'object') type = `array of objects (§${section})`;
    else type = `array of ${describe('', items, section)}`;
  } else if (type === 'object') {
    const isMap = schema.properties === undefined && isSchema(schema.additionalProperties);
    type = named ?? (isMap ? 'map of strings' : `object (§${section})`);
  }
  return limits.length === 0 ? type : `${type}, ${limits.join(', ')}`;
};

const fieldTable = (branch: JsonSchema, section: string): string => {
  const required = new Set(branch.required ?? []);
  const rows = Object.entries(branch.properties ?? {}).map(([field, schema]) => {
    const description = isSchema(schema) ? describe(field, schema, section) : '';
    return `| \`${field}\` | ${required.has(field) ? 'yes' : 'no'} | ${description} |`;
  });
  return ['| Field | Required | Type and structural limits |', '|---|---|---|', ...rows].join('\n');
};

/** Branch titles start with the channel: `sms`, `rcs (v1.1)`. */
const sectionOf = (title: string): string => {
  const channel = SEND_CHANNELS.find((candidate) => candidate === title.split(' ')[0]);
  if (channel === undefined) throw new Error(`JSON Schema branch "${title}" names no channel`);
  return CHANNEL_SPEC_SECTION[channel];
};

const variableSources = (): string =>
  (Object.entries(VARIABLE_SOURCES) as Array<[SendChannel, (typeof VARIABLE_SOURCES)['sms']]>)
    .map(
      ([channel, sources]) =>
        `  - \`${channel}\`: ${sources
          .map(
            (source) =>
              `\`${source.syntax}\` in ${source.fields.map((field) => `\`${field}\``).join(', ')}`,
          )
          .join('; ')}`,
    )
    .join('\n');

const RULES = (): string => `### The envelope

- \`channel\` is one of ${ROUTES.map((route) => route.channel)
  .filter((channel, index, all) => all.indexOf(channel) === index)
  .map((channel) => `\`${channel}\``)
  .join(', ')}.
- \`variant\`: optional for \`sms\` and \`mms\` (\`xms\` or \`msg\`), required for \`rcs\` (\`v1\`,
  \`v1.1\` or \`integrated\`), not a field of any other channel.
- \`attachments\` (\`mms\` only): 1 to ${MAX_MMS_FILES} S3 objects \`{ bucket, key, name?, contentType? }\`;
  not together with \`fileIdLst\`, not with variant \`msg\` (the multipart path exists on
  \`{send_url}\` only), at most ${MAX_MMS_FILES} files in total.
- A field the channel's request does not have is rejected (a typo never reaches the gateway).
  Only the objects whose fields spec 01 leaves "not shown" accept any field: brand buttons,
  coupon, carousel list and wide-item entries, and the card variables of a two-way reply \`body\`.
- A message nests at most ${MAX_NESTING_LEVELS} levels of objects and arrays, itself the first
  (DynamoDB's bound on nested attributes; the gateway's own fields use a few). A deeper one gets
  that one problem, at the path of the first level too deep (\`$.coupon.nested[0][0]…\`), before
  any other check: the free-form fields (\`userCustomFields\`, coupon, buttons…) take any JSON.

### Every channel with a recipients list

- \`recvInfoLst\`: 1 to ${MAX_RECIPIENTS} recipients (§8); \`cliKey\` matches
  \`^[a-zA-Z0-9\\-_.@]{1,30}$\` and is unique within the message; \`phone\` matches \`^[0-9-]{1,20}$\`.
  \`mergeData\` values are strings.
- Push recipients need \`cuid\`; their \`phone\` is the fallback number, required when the message
  has \`fbInfoLst\`.
- Template variables: every variable the message text uses must have a value in every
  recipient's \`mergeData\`; a missing one is reported at \`$.recvInfoLst[i].mergeData\` with its
  name. The text searched, per channel:
${variableSources()}
- Brand \`CAROUSEL_COMMERCE\` (free type): a variable inside \`carousel.list[N-1].commerce\` is looked
  up as \`name_N\` (§4.9), one based; elsewhere as \`name\`.
- Length limits hold for the text each recipient receives: \`#{name}\` filled in from the
  recipient's \`mergeData\` is counted again (SMS/MMS bytes and characters, fallback texts,
  notification \`msg\`, push \`msg\`, brand \`content\`).

### Scheduling

- \`resvReqDt\` is \`YYYY-MM-DD HH:mm\`, a real date-time, KST; it is required when \`resvYn\` is \`Y\` and
  refused otherwise (a time without \`resvYn\` \`Y\` would be sent at once).
- It must lie after the current time and at most ${SCHEDULE_HORIZON_DAYS} days ahead (§8): exactly
  ${SCHEDULE_HORIZON_DAYS} days is accepted, one minute more is not. The sender checks again when it takes the
  message from the queue.

### Text, counted as the carriers count

- SMS \`msg\` at most ${SMS_MAX_BYTES} bytes; MMS \`msg\` at most ${MMS_MAX_BYTES} and \`title\` at most ${MMS_TITLE_MAX_BYTES} bytes, counted as
  CP949 (Hangul 2 bytes each). SMS and MMS text may not hold characters CP949 cannot encode,
  such as most emoji. MMS \`fileIdLst\` holds at most ${MAX_MMS_FILES} ids.
- Notification \`msg\` at most 1000 characters; push \`msg\` title and body together at most
  ${PUSH_MSG_MAX_CHARS} characters and \`ext\` at most ${PUSH_EXT_MAX_BYTES} bytes (UTF-8 JSON).
- Brand free \`content\`: \`TEXT\`/\`IMAGE\` at most 1300 characters and 99 line breaks,
  \`WIDE\`/\`PREMIUM_VIDEO\` at most 76 characters and 5 line breaks; \`TEXT\` needs it.

### Fallback (\`fbInfoLst\`)

- \`ch\` is \`SMS\` or \`MMS\`, different from the main channel (an SMS cannot fall back to SMS), and
  each channel appears once (gateway code \`21051\`). Two-way replies have no fallback.
- The fallback text follows the SMS/MMS rules above; an MMS fallback needs \`title\`;
  \`fileId\` and \`fileIdLst\` (at most ${MAX_MMS_FILES}) are alternatives.

### RCS

- \`messagebaseId\` and \`callback\` at most 100; \`header\` \`0\` (informational) or \`1\` (advertising);
  an advertising message needs \`footer\` (the opt-out number, at most 20).
- At most ${MAX_RCS_BUTTONS} \`buttons\`; each suggestion has the action object its \`postback.data\` kind needs
  and no other (URL, copy, dial, calendar with ISO 8601 UTC times, location push, coordinate
  or query location).
- \`v1\` takes no \`brandId\`, \`brandKey\` or \`productCode\`; \`integrated\` takes \`header\` \`0\` only and no
  \`footer\`, \`copyAllowed\` or \`clickUrlYn\`. With \`agency\`, \`brandId\`, \`brandKey\` and \`productCode\`
  are required (\`v1.1\`, \`integrated\`, two-way reply).
- Two-way reply: \`replyId\`, \`cliKey\` (at most 20), \`messagebaseId\`, \`chatbotId\` (at most 40),
  \`telco\`, \`phone\` and \`body.description\` are required; no scheduling.

### Messenger notification

- At most ${MAX_MESSENGER_BUTTONS} \`buttons\` of the types in §4.8, \`name\` at most 14; \`WL\` needs
  \`url_mobile\`, \`AL\` two of \`linkIos\`, \`linkAnd\`, \`linkMo\`; \`AC\` only as the single or first
  button; \`chat_extra\` only on \`BC\`/\`BT\`, \`chat_event\` only on \`BT\`.
- \`item.list\` 2 to 10 entries (title at most 6, description at most 23); \`item.summary\` title at
  most 6, description at most 14 and only variables, currency units, digits, comma and period.

### Brand messages

- \`targeting\` \`M\`, \`N\` or \`I\`; \`unsubscribePhoneNumber\` hyphenated (\`080-1234-5678\`, at most 13);
  \`unsubscribeAuthNumber\` (at most 10) only with \`unsubscribePhoneNumber\`.
- Free type, per \`chatBubbleType\` (§4.10): button counts (\`TEXT\`/\`IMAGE\` 5, 4 with a coupon;
  \`WIDE\`/\`WIDE_ITEM_LIST\` 2; \`PREMIUM_VIDEO\` 1; \`COMMERCE\` 1 to 2; none on carousels), \`AC\` first on
  \`TEXT\`/\`IMAGE\` and last elsewhere, \`WL\` needs \`linkMobile\`, \`AL\` two links, \`BF\` a \`bizFormId\`;
  no coupon on carousels; the fields each type requires (\`imageUrl\`, \`header\`, \`wideItemList\` of
  exactly 3, \`video.videoUrl\`, \`commerce\`, \`carousel\`) and no field of another type; commerce
  prices 0 to 99,999,999 with \`discountRate\` (1 to 100) or \`discountFixed\` (0 to 999,999), not
  both; \`additionalContent\` at most 34 characters and 1 line break; a carousel \`head\` needs
  \`header\`, and \`linkMobile\` once it has any link.

### Not checked before sending

- Whatever only the gateway knows: registered sender numbers, templates (\`messagebaseId\`,
  \`tmpltCode\`) and the variables inside them, channel ids, file ids (expired ids answer \`21029\`),
  the opt-out list. So variables of a brand *template* (including carousel commerce \`name_N\`)
  and of a registered RCS template are not checked: their text is not in the request.
- The RCS advertising marker and opt-out number inside the text (§4.5): the text is in the
  registered template and \`mergeData\`, with no fixed wording to test for.
- The fixed labels of brand \`AC\` and \`BF\` buttons, and "AC only on ad-add or composite
  templates": the spec does not give them. "No quick replies with \`DS\`/\`AC\`": the request has no
  quick-reply field.
- The fields spec 01 marks "not shown" (brand buttons, coupon, carousel list, wide items): any
  field passes.
- S3 attachments: type, size and existence are known only when the sender reads the object.
- A missing or mistyped field can hide the cross-field rules of its object (zod runs them only
  once the fields they read parse): fix it and run \`validate\` again.`;

/** `docs/sending.md` and the JSON Schema file, by path relative to the repository root. */
export const renderSendingDocs = (): Record<string, string> => {
  const schema = sendMessageJsonSchema();
  const routes = ROUTES.map(({ channel, variant, endpoint }) => {
    const { host, path, body } = SEND_ENDPOINTS[endpoint];
    return `| \`${channel}\` | ${variant} | \`POST ${HOSTS[host]}${path}\`${body === 'multipart' ? ' (multipart)' : ''} | §${CHANNEL_SPEC_SECTION[channel]} |`;
  }).join('\n');
  const fields = schema.oneOf
    .map((branch) => {
      const title = branch.title ?? '';
      const section = sectionOf(title);
      return `### ${title} (spec 01 §${section})\n\n${branch.description ?? ''}\n\n${fieldTable(branch, section)}\n`;
    })
    .join('\n');
  const examples = SEND_MESSAGE_EXAMPLES.map(
    (example) =>
      `### ${example.title}\n\n${example.description}\n\n\`\`\`json\n${JSON.stringify(example.message, null, 2)}\n\`\`\`\n`,
  ).join('\n');

  const markdown = `# Sending messages

<!-- Generated by \`tsx scripts/generate-sending-docs.ts\` from functions/sending/queue-message*.ts and producer/examples.ts; do not edit by hand. -->

Producers send a message by putting one JSON object on msgbridge's send queue. msgbridge
validates it, sends it through the gateway within the account's rate limit, retries what can
be retried, and reports every outcome as an event (an acceptance only where \`sending.acceptedEvents\` is on: otherwise the delivery report is the first event of an accepted recipient; see [events.md](events.md)): producers never
handle a token, a byte count or a gateway retry.

## What a queue message is

A queue message is **one gateway send request body**, flat, with the field names of spec 01
(\`callback\`, \`msg\`, \`recvInfoLst\` with 1 to ${MAX_RECIPIENTS} recipients, \`fbInfoLst\`, \`resvYn\`, \`resvReqDt\`,
\`buttons\`, …), plus:

| Field | Required | Meaning |
|---|---|---|
| \`channel\` | yes | which send: ${[...new Set(ROUTES.map((route) => `\`${route.channel}\``))].join(', ')} |
| \`variant\` | \`rcs\`: yes; \`sms\`, \`mms\`: no | which of the spec's paths: \`xms\` (default) or \`msg\` for SMS/MMS; \`v1\`, \`v1.1\` or \`integrated\` for RCS, which accept different fields |
| \`attachments\` | no (\`mms\` only) | 1 to ${MAX_MMS_FILES} S3 objects \`{ "bucket", "key", "name"?, "contentType"? }\` sent through the multipart endpoint; not with \`fileIdLst\` |

| \`channel\` | \`variant\` | Gateway endpoint | Spec 01 |
|---|---|---|---|
${routes}

An invalid message is not sent: it produces one \`Send Rejected\` event listing its problems with
their JSON paths, and is not retried. Whatever a message holds, its rejection fits the bus: the
event carries the message cut at 64 KiB, as many of its \`cliKey\`s and problems as fit (16 and
32 KiB of JSON) beside \`cliKeyCount\` and \`problemCount\`; the whole message is kept in the
event table, or, past the table item's budget (a queue message may be 1 MiB, an item 400 KB), in
the attachment bucket below \`payloads/send/\`, named by the event's \`payloadRef\`. A rejection is
found with \`npx msgbridge trace\` (and the console's search) by its SQS message id or by any of
the first 10 \`cliKey\`s it named. Check messages before they are queued:

- TypeScript producers: \`enqueueSend(sqs, queueUrl, messages)\` from
  \`producer/enqueue-send.ts\` validates each message, sends the valid ones with
  \`SendMessageBatch\` and returns \`{ queued, invalid, failed }\` per message index.
- Everyone else, and CI: \`npx msgbridge validate FILE…\` reads one JSON object, an array of
  objects or JSON lines per file, prints every problem as \`FILE[#index or :line]: $.path: message\`
  and exits 1 if any message is invalid. It runs exactly the validation the sender runs, with
  the current time, and refuses a \`cliKey\` that an earlier message of the files already uses
  (\`npx msgbridge send FILE…\` runs the same check and queues nothing then).

## What each recipient becomes

Each recipient (\`cliKey\`) of a valid message ends with exactly one outcome:

| Outcome | When |
|---|---|
| accepted: its \`Delivery Report Received\`, preceded by \`Message Accepted\` where \`sending.acceptedEvents\` is on | the gateway accepted it (\`alreadyAccepted\` when it answered the duplicate family \`29005\`/\`29023\`/\`29024\`: an earlier call had); the acceptance is listed on the message's send record either way, and \`reconcile-status\` asks the status query about it if no report comes within 30 minutes |
| \`Message Scheduled\` | a scheduled send (\`resvYn: "Y"\`) was registered (\`webReqId\`); when a resend met the registration of an earlier attempt (duplicate answer, no \`webReqId\`), \`Message Accepted\` with \`alreadyAccepted\` instead, published whatever \`sending.acceptedEvents\` says |
| \`Message Rejected\`, \`permanent\` | the gateway refused it and would again |
| \`Message Rejected\`, \`retries-exhausted\` | it answered retryable failures (\`29002\`, \`49xxx\`, …) until the message's last delivery |
| \`Message Rejected\`, \`not-sent\` | the last delivery got **no answer**, and the status query still did not know the \`cliKey\` ${NOT_SENT_AFTER_MINUTES} minutes after the attempt (\`code\` \`INVALID_KEY\`) |

Retryable failures go back to the queue (15 s, 30 s, 60 s … backoff); a redelivery sends only the
recipients still open, with the same \`cliKey\`s, which is safe: the gateway answers a repeated
\`cliKey\` with the duplicate family, read as "already accepted". Every attempt holds a claim on
the message's send record (one item per queue message, under its smallest \`cliKey\`) that is
unique to that attempt, so two invocations handed the same queue message (a visibility timeout
that expired) never send a recipient at the same time.

**A \`cliKey\` names one message.** The send record keeps the content of the message that claimed
it first (a fingerprint of its channel and body, recipients in \`cliKey\` order). A second queue
message with the same recipients and the same content, however its JSON is spelt, is a
producer's retry: it shares the record and sends nobody twice, silently. A message that reuses
the \`cliKey\` with other content (another phone, text or option) is a producer's error, not a
retry: the message whose claim came first is sent as it was written, and the other is not sent
and becomes a \`Send Rejected\` whose problem names the \`cliKey\` and both SQS message ids, and
whose \`reusedCliKey\` holds them (\`{ cliKey, sqsMessageId }\` of the first). This holds for
messages whose smallest \`cliKey\` is the reused one (every single-recipient message, the commonest
case); two messages that share only other \`cliKey\`s do not see each other's records, and only
the gateway's duplicate check keeps those from being accepted twice (the later one's overlapping
recipients are then reported as already accepted). Use a new \`cliKey\` for every new message.

**No answer is not a rejection.** When the last delivery's call times out, loses its connection,
gets an unreadable answer or an HTTP 5xx, or the answer leaves a recipient out, the gateway may
have accepted it. The recipient is then kept as an *unknown outcome* (no event yet), and
\`reconcile-status\` (every 15 minutes) asks the gateway's status query about it from
${UNKNOWN_AFTER_MINUTES} minutes after the attempt: a known \`cliKey\` is accepted (\`Message Accepted\` where
those are published; its report follows as usual; for a scheduled send \`Message Accepted\`
whatever \`sending.acceptedEvents\` says, as for a duplicate answer above, and its report comes when
the schedule is due), one still unknown after ${NOT_SENT_AFTER_MINUTES} minutes becomes \`Message Rejected\`
with category \`not-sent\`. Every \`Message Rejected\` means the gateway did
not accept that \`cliKey\`; resend under a **new** \`cliKey\` only after one, never while an outcome
is still pending. Until the outcome is known, a queue message with the same \`cliKey\` is sent
again under that \`cliKey\` (safe, as above), and while \`reconcile-status\` decides, no sender
sends it.

A duplicate-key answer to a whole request of several recipients (a scheduled send answers no
per-recipient list) does not say which of them the gateway already had; each is then sent alone,
so that only the ones it had are reported as accepted.

The TPS quota is taken per request that reaches the gateway, for every recipient in it: also
for a request sent again with a fresh token after an authentication refusal. A reservation that
comes back too late in its second to be used is given back before the next second is reserved.

**How much of the quota is used.** \`send-messages\` takes up to 10 queue messages an invocation
(\`sending.batchSize\`) and sends them side by side: a batch takes its claims, one shared quota
write, its gateway calls (as long as the slowest) and the records. An invocation of 1-recipient
messages therefore sends about as many recipients a second as it finishes batches: about 43
measured on the local run against a gateway answering in 50–150 ms, 10 recipients in some 233 ms
(docs/performance.md, \`send-defaults\`). 10-recipient messages carry ten times as many per call,
and the quota, not the sender, holds them back. Unless \`sending.maxConcurrency\` is set, the send
queue's event source therefore runs as many invocations as 1-recipient messages need to fill
\`gateway.tpsQuota\`, counting ${SENDER_RECIPIENTS_PER_SECOND} recipients a second each:
max(${MIN_SEND_CONCURRENCY}, min(${MAX_DEFAULT_SEND_CONCURRENCY}, ceil(quota / ${SENDER_RECIPIENTS_PER_SECOND}))), so ${defaultSendConcurrency(68)} up to a quota of 68, ${defaultSendConcurrency(100)} at 100 and ${defaultSendConcurrency(1_000)} at 1,000.

More invocations are not better. They never send above the quota (the limiter holds each second
to it), and with 10-recipient messages each waits longer for its share: its 100 recipients take
their turn with every other invocation's, about 100 / ${SENDER_RECIPIENTS_PER_SECOND} ≈ ${Math.round(100 / SENDER_RECIPIENTS_PER_SECOND)} s at the default. A gateway call takes its
share of the quota just before its request is written, on a connection it already holds, so that
the request lands in the second it was counted in; a server closes a connection idle for 5 s
(Node's and Apache httpd's default), and a wait that long loses the call ("socket hang up") and
delivers its message again 15 s later. The local run lost none at 3 invocations for a quota of
100, and 17 to 24 of 300 10-recipient messages at 4 or 5. An invocation waiting for the quota is
also billed for the wait. Set \`sending.maxConcurrency\` yourself for a gateway much slower than
150 ms an answer (1-recipient messages then need more invocations; \`npm run bench -- send-defaults\`
measures them against the simulator's \`latencyMs\` and \`latencyJitterMs\`), and for a quota above
${(MAX_DEFAULT_SEND_CONCURRENCY * SENDER_RECIPIENTS_PER_SECOND).toLocaleString('en-US')} a second, together with the account's Lambda concurrency.

## Fields per channel

Types and the limits JSON Schema can express, from the request schemas. Byte counts, cross-field
rules, the scheduling horizon and template variables are listed under
[Rules checked before sending](#rules-checked-before-sending).

${fields}
## Rules checked before sending

Everything below is checked by \`parseSendMessage\` (\`functions/send-contract/queue-message-parsing.ts\`), which
the producer helper, \`msgbridge validate\` and the sender share. Every problem is reported at
once, each with its JSON path (\`$.recvInfoLst[3].cliKey\`).

${RULES()}

## Examples

One valid message per channel and RCS variant (\`producer/examples.ts\`). The scheduled
example is valid at ${EXAMPLES_VALID_AT.toISOString()} and until its \`resvReqDt\`.

${examples}
## JSON Schema

[\`${SEND_MESSAGE_SCHEMA_PATH}\`](schemas/send-message.schema.json) (draft 2020-12) describes the
same contract for other languages and editors: \`oneOf\` one branch per channel and per RCS
variant, each the channel's request body with \`channel\` (a \`const\`), \`variant\` and \`attachments\`
added. It holds structure only (fields, types, required fields, lengths in characters, list
sizes, patterns); run \`msgbridge validate\` for every rule above.
`;
  return {
    [SENDING_DOC_PATH]: markdown,
    [SEND_MESSAGE_SCHEMA_PATH]: `${JSON.stringify(schema, null, 2)}\n`,
  };
};
