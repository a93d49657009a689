import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slugOf as slug } from '../functions/catalogue/detail-type-names.ts';
import { EVENT_TYPES, eventDetailSchema } from '../functions/catalogue/index.ts';
import * as z from '../gateway/schemas/zod.ts';

const DESCRIPTIONS: Record<keyof typeof EVENT_TYPES, string> = {
  deliveryReport:
    'One delivery result of one recipient, from the report webhook, report polling or the status query. Exactly one event per distinct report (`msgKey`, `resultCode`, final channel), however often the gateway delivers it. `messageStatus` is the message\'s status when the event was published, forward-only: act on that, not on `delivered` (see "A message\'s status").',
  inboundMessage:
    'One message an end user sent to one of your receiving numbers (MO), once per `moKey`. Attachments are described; their single-use URLs are not passed on.',
  unrecognisedBody:
    'A webhook body of a shape msgbridge does not know (for example two-way RCS lists). It is kept whole in the event table and answered as success, so nothing is lost.',
  quarantinedItem:
    'A body that is not JSON, or one item that fails validation. The rest of its body is processed normally; the raw text is kept whole in the event table.',
  messageAccepted:
    'The gateway accepted one recipient of a queued send (accepted is not delivered: the delivery report follows). Once per `cliKey`. Published only where the deployment sets `sending.acceptedEvents` to `true` (off by default: the delivery report is the event most subscribers act on, and this one would double the events of every send); off, the acceptance is stored on the send record of its message, not published.',
  messageRejected:
    'The gateway refused one recipient of a queued send, or its retryable failures outlasted the queue. Once per `cliKey`.',
  messageScheduled:
    'A scheduled send (`resvYn` `Y`) was registered; the gateway answers one `webReqId` for the whole request. Once per `cliKey`.',
  inboundAttachmentStored:
    'One attachment of an inbound message, downloaded from the gateway and stored in S3 (streamed, with size and checksum). Once per attachment.',
  inboundAttachmentLost:
    'An attachment that could not be downloaded before the gateway dropped it (7 days after the message). An alarm fires too.',
  messageStatusUnavailable:
    'The status query could not tell what happened to an accepted recipient that never got a report: `OVER_DATE` or `INVALID_KEY`.',
  trackingUrlStatistics:
    "The previous KST day's figures of one tracking URL (sends with it and their clicks by channel, clicks that day), from the daily statistics export. Once per URL and day; a rerun of the same day causes no second event.",
  messengerStatistics:
    'One read/click statistic of one messenger channel (spec 02 §4.5) for one send date, from the daily statistics export. Once per statistic, channel, send date and elapsed day (and part); a rerun of the same day causes no second event.',
  sendRejected:
    'A queue message failed validation before any gateway call; every problem is listed with its JSON path. It is not retried.',
};

/** The consumer example the page shows; compiled by `npm run test:types` and run by a unit test. */
export const CONSUMER_EXAMPLE_PATH = 'docs/examples/delivery-subscriber.ts';

/**
 * The example as a subscriber writes it: importing `msgbridge/events` (the package's export of
 * `events/index.ts`) instead of the repository path the example compiles against.
 */
const consumerExample = (): string =>
  readFileSync(join(import.meta.dirname, '..', CONSUMER_EXAMPLE_PATH), 'utf8').replace(
    "from '../../events/index.ts';",
    "from 'msgbridge/events';",
  );

/** The JSON Schema files and the catalogue page, by path relative to the repository root. */
export const renderEventCatalogue = (): Record<string, string> => {
  const files: Record<string, string> = {};
  const rows: string[] = [];
  const sections: string[] = [];
  for (const [name, { detailType, data }] of Object.entries(EVENT_TYPES) as Array<
    [keyof typeof EVENT_TYPES, (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES]]
  >) {
    const schemaPath = `docs/events/${slug(detailType)}.schema.json`;
    const schema = {
      ...z.toJSONSchema(eventDetailSchema(data), { target: 'draft-2020-12', io: 'output' }),
      title: detailType,
      description: DESCRIPTIONS[name],
    };
    files[schemaPath] = `${JSON.stringify(schema, null, 2)}\n`;
    rows.push(
      `| \`${detailType}\` | [${slug(detailType)}.schema.json](events/${slug(detailType)}.schema.json) |`,
    );
    const fields = Object.entries(
      (
        z.toJSONSchema(data, { io: 'output' }) as {
          properties?: Record<string, { description?: string }>;
        }
      ).properties ?? {},
    )
      .map(
        ([field, property]) =>
          `- \`${field}\`${property.description ? `: ${property.description}` : ''}`,
      )
      .join('\n');
    sections.push(`## ${detailType}\n\n${DESCRIPTIONS[name]}\n\n\`data\` fields:\n\n${fields}\n`);
  }
  files['docs/events.md'] = `# Event catalogue

<!-- Generated by \`npm run docs:events\` from functions/catalogue/catalogue.ts; do not edit by hand. -->

Every event msgbridge puts on its bus has source \`msgbridge\` (configurable) and
\`detail = { metadata, data }\`. \`metadata\` is the same for every type:

- \`id\`: ours, derived from the idempotency key, so it is stable across redeliveries and replays:
  subscribers that must act once can de-duplicate on it.
- \`type\` (the detail-type), \`version\` (\`"1"\`), \`occurredAt\` (UTC; the gateway's time where it
  gives one), \`receivedAt\` (UTC), \`via\` (\`webhook\`, \`polling\`, \`status-query\`, \`send-queue\` or
  \`statistics-query\`),
  \`idempotencyKey\`: the event's kind and the parts that identify its fact
  (\`report:<msgKey>:<resultCode>:<ch>\`, \`mo:<moKey>\`, \`send:<cliKey>\`, …). Each part is escaped
  (\`%\` as \`%25\`, \`#\` as \`%23\`, \`:\` as \`%3A\`, an unpaired UTF-16 surrogate as \`%uD800\`…, an absent
  \`ch\` as \`-\` and the string \`-\` as \`%2D\`), so two different facts never share a key or an \`id\`;
  keys made of letters, digits and the other punctuation read as before.

Delivery guarantees are below ("Delivery guarantees"): in short, each stored item's event is put
on the bus once, and in the few cases where a second copy is possible it carries the same
\`metadata.id\`.

| Detail-type | JSON Schema |
|---|---|
${rows.join('\n')}

## Subscribing

Events go to the stack's bus (output \`EventBusName\`). Example rules (event patterns):

\`\`\`json
{ "source": ["msgbridge"], "detail-type": ["Delivery Report Received"], "detail": { "data": { "messageStatus": ["failed"] } } }
\`\`\`

every report that leaves its message failed (a failure reported after the message was delivered
says \`delivered\` and does not match);

\`\`\`json
{ "source": ["msgbridge"], "detail-type": ["Inbound Message Received"], "detail": { "data": { "receivingNumber": ["15880000"] } } }
\`\`\`

inbound messages to one receiving number;

\`\`\`json
{ "source": ["msgbridge"], "detail-type": ["Send Rejected", "Message Rejected", "Item Quarantined", "Inbound Attachment Lost"] }
\`\`\`

everything a person should look at. Subscribers that must act once de-duplicate on
\`detail.metadata.id\`; after an archive replay, \`replay-name\` is set on the envelope, so live
rules that must ignore replays add \`"replay-name": [{ "exists": false }]\`.

### A message's status: \`messageStatus\`

A message can have several reports: \`32114\` ("success uncertain, may still arrive within 3
days") and later its final result, or a failure on one channel beside the fallback that
delivered. \`delivered\`, \`resultCode\` and \`failureCategory\` say what one report says;
\`messageStatus\` says what became of the message, and is what to act on: the message's status
when the event was published — this report and every report of the message stored before it,
ranked \`uncertain\` < \`failed\` < \`delivered\`. A \`32114\` or a failure stored after a
\`10000\` carries \`delivered\`.

How it is set: each report is stored as it came, with one conditional put (its stored detail says
its own status). \`publish-events\` reads the message's reports when it publishes one: one
strongly consistent Query of the message's partition (keys only: the result code is in the sort
key) per distinct \`msgKey\` of a batch, and puts the highest status there, at least the report's
own, in \`messageStatus\`. Why a report never unsays a delivery: the Query runs after the report
was stored and is strongly consistent, so it sees the report and every report stored before it;
a report stored after a delivery therefore says \`delivered\`, whatever order Lambda hands the
records over in (it keeps the order of one item's records, and the reports of a message are
several items: [Using AWS Lambda with Amazon DynamoDB](https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html),
concurrent batches per shard, read 2026-12-07). A report stored before the delivery but published
after it (the publisher's second batch of a shard at once) may say \`delivered\` too, or its
status as it was: an earlier report's lower status is never news. A report whose message's status cannot be read is not
published (nor anything after it in its batch) until a retry can read it. \`msgbridge events
republish\` reads the status the same way when it publishes; an archive replay puts the events
again as they were published.

What it costs: one Query per distinct \`msgKey\` of a publisher batch, strongly consistent: one
read unit per 4 KB of the message's report items it reads (the projection does not lessen it; a
message's few reports, most under 1 KB stored, usually take one unit), and no write: each report
stays one write unit.
A status item kept per message by the receivers instead, with blockers between concurrent
reports, measured 4.38 write units per recipient end to end against 1.46.

EventBridge does not keep events in order, so an event stored earlier (\`uncertain\`, \`failed\`)
can reach a target after a later one (\`delivered\`): a subscriber that keeps state per \`msgKey\`
keeps the highest \`messageStatus\` it has seen.

## Typed events for consumers

\`msgbridge/events\` (\`events/index.ts\`, generated from the same zod schemas as the JSON Schema
files) gives subscribers TypeScript types and type guards, with nothing to load at run time (no
zod: the guards are a few comparisons):

- per detail-type, the event as a rule's target receives it (\`DeliveryReportReceived\`,
  \`InboundMessageReceived\`, …), its detail (\`DeliveryReportReceivedDetail\`) and its \`data\`
  (\`DeliveryReportReceivedData\`), each field with its description; \`EventMetadata\`;
- \`MsgbridgeEvent\`, the union of every event, narrowed by \`detail-type\`
  (\`MsgbridgeEvent<'Message Rejected'>\` is one type), and \`EventDetails\`, the detail of each
  detail-type;
- \`DetailType\` (\`DetailType.DeliveryReportReceived\` is \`'Delivery Report Received'\`) and
  \`ALL_DETAIL_TYPES\`, for rule patterns;
- a guard per detail-type (\`isDeliveryReportReceived(event, source?)\`, …), \`isMsgbridgeEvent\`
  and \`isMsgbridgeEventOf(detailType, event, source?)\`. They check the envelope's \`source\`
  (\`msgbridge\` unless you pass the deployment's \`eventSource\`) and \`detail-type\`, and that the
  detail is \`{ metadata, data }\` with every metadata field, of that type and version \`1\`. They do
  not check each \`data\` field: the publisher validated the detail against the same schemas before
  putting it on the bus.

The event types have the shape of \`EventBridgeEvent<T, D>\` of \`@types/aws-lambda\`, so an
\`EventBridgeHandler<'Delivery Report Received', DeliveryReportReceivedDetail, void>\` works as
well. A consumer Lambda (\`${CONSUMER_EXAMPLE_PATH}\`, which the tests compile and run):

\`\`\`ts
${consumerExample()}\`\`\`

\`npm run docs:events\` regenerates the types with the rest of this page; a test fails when they
differ from the types zod infers from the catalogue.

## Schema registry

The stack deploys an EventBridge schema registry (its name is the output
\`EventSchemaRegistryName\`) with one schema per detail-type, named like its type
(\`DeliveryReportReceived\`, …), in the registry's \`JSONSchemaDraft4\` format: the whole event as
a subscriber receives it, with \`source\` and \`detail-type\` fixed and the detail, converted to
draft 4 from the same zod schemas, as its definition. The documents for the source \`msgbridge\`
are in [events/registry/](events/registry/); a deployment with another \`eventSource\` names its
own. A schema whose document changes gets a new version at the next deployment.

For code bindings in Java, Python, Go or TypeScript: in the EventBridge console, **Schemas**, the
registry, a schema, **Download code bindings**; or with the AWS CLI (languages \`Java8\`,
\`Python36\`, \`TypeScript3\`, \`Go1\`):

\`\`\`sh
REGISTRY=$(aws cloudformation describe-stacks --stack-name <stack> \\
  --query "Stacks[0].Outputs[?OutputKey=='EventSchemaRegistryName'].OutputValue" --output text)
aws schemas put-code-binding --registry-name "$REGISTRY" --schema-name DeliveryReportReceived --language Python36
# until its Status is CREATE_COMPLETE:
aws schemas describe-code-binding --registry-name "$REGISTRY" --schema-name DeliveryReportReceived --language Python36
aws schemas get-code-binding-source --registry-name "$REGISTRY" --schema-name DeliveryReportReceived \\
  --language Python36 delivery-report-received.zip
\`\`\`

TypeScript subscribers are better served by \`msgbridge/events\` above, which adds the guards.

## Delivery guarantees

Every report, inbound message, send outcome and quarantined item is stored first; its event is
published from the event table's stream by \`publish-events\`, which puts each stored item's event
on the bus **once**, whatever part of a \`PutEvents\` call fails:

- An entry the bus refuses is sent again (only that entry) a few times within the invocation.
- An entry still refused after that, or an item that cannot become an event, is **marked for
  republish** in the state table (alarm \`publish-failures\` or \`poison-records\`) and the rest of the
  batch goes on: \`msgbridge events republish\` publishes it later from the table (see
  docs/operations.md). The publisher does not make Lambda retry the batch for it, because Lambda
  retries a stream from the failed record on and would put every later event a second time.
- Only when the state table fails too is the batch left to Lambda's retries. The publisher then
  marks the later records it has already published, and the retry skips them; records that reach
  the on-failure queue are published by \`msgbridge events republish\`, which skips the ones
  marked as published.

The happy path adds no write: markers are written only when something failed.

**Where a second copy is possible** (and why it is not prevented): after \`PutEvents\` has accepted
an entry, only the publisher's next step records that — Lambda's checkpoint, or a marker. If
the function is stopped in between (timeout, crash, a lost \`PutEvents\` answer that the SDK
retries), or the state table fails in the same invocation as \`PutEvents\` (the publisher counts
these as \`EventsUnguarded\`), the record is delivered again and its event put again. That copy
has the same \`metadata.id\`, the same \`data\` and the same \`metadata.occurredAt\`: subscribers that
must act once de-duplicate on \`detail.metadata.id\` (for example with a conditional write keyed
on it, kept for a day or more). An archive replay or a republish is marked or identified the
same way.

${sections.join('\n')}`;
  return files;
};
