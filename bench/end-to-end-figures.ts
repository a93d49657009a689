/**
 * The end-to-end scenario's figures: a mark of every counter at a phase's start and end, the
 * phase's calls, Lambda invocations and simulator counts between two marks, their cost per
 * million messages at list prices, and the tables printed for them.
 */
import type { WebhookFront } from '../lib/webhook-api.ts';
import type { LocalBridge } from '../local/bridge.ts';
import type { SimSnapshot } from '../simulator/controls.ts';
import { type CallCounter, type CallSnapshot, diffSnapshots, sumWhere } from './call-counter.ts';
import type { EventWatch, SendBatches } from './end-to-end-watch.ts';
import type { LogBytes } from './log-meter.ts';
import { LAMBDA_MEMORY_MB, PRICE_REGION, PRICES, PRICES_AS_OF } from './prices.ts';
import { type Cell, ratio, round, significant, type Table } from './report.ts';
import { diffTraffic, type TrafficMeter, type TrafficSnapshot } from './traffic.ts';

type LambdaName = keyof typeof LAMBDA_MEMORY_MB;

export interface PhaseFigures {
  readonly messages: number;
  readonly calls: CallSnapshot;
  readonly lambda: Record<LambdaName, { invocations: number; ms: number }>;
  readonly eventBytes: number;
  readonly events: number;
  /** Events and their billed bytes, by detail-type. */
  readonly eventsByType: Record<string, { events: number; bytes: number }>;
  /** Log lines the functions' loggers wrote, and their bytes, by function. */
  readonly logs: Record<string, { lines: number; bytes: number }>;
  /** Bytes on the wire, by function, service and operation (`traffic.ts`). */
  readonly traffic: TrafficSnapshot;
  readonly simulator: {
    readonly sends: number;
    readonly rejectedSends: number;
    readonly authentications: number;
    readonly reportPosts: number;
    readonly moPosts: number;
  };
}

export const isKey = (prefix: string) => (key: string) => key.startsWith(prefix);

// ---- phase bookkeeping ----

/** What the run measures besides the call counts: log bytes, wire bytes, reconcile runs. */
export interface Meters {
  readonly logs: LogBytes;
  readonly traffic: TrafficMeter;
  /** The reconcile-status invocations the benchmark made, and their wall time. */
  readonly reconcile: { invocations: number; ms: number };
}

export interface Mark {
  readonly at: number;
  readonly calls: CallSnapshot;
  readonly publisherInvocations: number;
  readonly fetcherInvocations: number;
  readonly reconcile: { readonly invocations: number; readonly ms: number };
  readonly eventBytes: number;
  readonly events: number;
  readonly eventsByType: Record<string, { events: number; bytes: number }>;
  readonly logs: Record<string, { lines: number; bytes: number }>;
  readonly traffic: TrafficSnapshot;
  readonly sim: SimSnapshot;
}

export const mark = (
  bridge: LocalBridge,
  counter: CallCounter,
  events: EventWatch,
  meters: Meters,
): Mark => ({
  at: performance.now(),
  calls: counter.snapshot(),
  publisherInvocations: bridge.publisher.stats.invocations,
  fetcherInvocations: bridge.jobs.fetcher.stats.invocations,
  reconcile: { ...meters.reconcile },
  eventBytes: events.bytes,
  events: [...events.byType.values()].reduce((sum, n) => sum + n, 0),
  eventsByType: Object.fromEntries(
    [...events.byType].map(([type, n]) => [
      type,
      { events: n, bytes: events.bytesByType.get(type) ?? 0 },
    ]),
  ),
  logs: meters.logs.snapshot(),
  traffic: meters.traffic.snapshot(),
  sim: bridge.sim.snapshot(),
});

/** `later − earlier` of tallies of counts, key by key and field by field. */
const diffCounts = <T extends Record<string, number>>(
  later: Record<string, T>,
  earlier: Record<string, T>,
): Record<string, T> =>
  Object.fromEntries(
    Object.entries(later).map(([key, tally]) => [
      key,
      Object.fromEntries(
        Object.entries(tally).map(([field, n]) => [field, n - (earlier[key]?.[field] ?? 0)]),
      ) as T,
    ]),
  );

export const phaseFigures = (
  start: Mark,
  end: Mark,
  sendBatches: SendBatches,
  messages: number,
): PhaseFigures => {
  const calls = diffSnapshots(end.calls, start.calls);
  const ms = (test: (key: string) => boolean) => sumWhere(calls, test, 'ms');
  const webhook = (route: string) => isKey(`webhooks POST /webhooks/{secret}/${route}`);
  return {
    messages,
    calls,
    lambda: {
      'receive-reports': {
        invocations: sumWhere(calls, webhook('report')),
        ms: ms(webhook('report')),
      },
      'receive-inbound': { invocations: sumWhere(calls, webhook('mo')), ms: ms(webhook('mo')) },
      'send-messages': sendBatches.between(start.at, end.at),
      // The handler's time is spent almost all in PutEvents: their summed time stands for it.
      'publish-events': {
        invocations: end.publisherInvocations - start.publisherInvocations,
        ms: ms(isKey('EventBridge PutEvents')),
      },
      // Downloads from the gateway and uploads to S3 stand for the handler's time.
      'fetch-attachments': {
        invocations: end.fetcherInvocations - start.fetcherInvocations,
        ms:
          ms((key) => /^S3 (Put|Upload|CreateMultipart|CompleteMultipart)/.test(key)) +
          ms((key) => /^gateway GET \/(_sim\/content|mo\/v1\/file)\//.test(key)),
      },
      'reconcile-status': {
        invocations: end.reconcile.invocations - start.reconcile.invocations,
        ms: end.reconcile.ms - start.reconcile.ms,
      },
    },
    eventBytes: end.eventBytes - start.eventBytes,
    events: end.events - start.events,
    eventsByType: diffCounts(end.eventsByType, start.eventsByType),
    logs: diffCounts(end.logs, start.logs),
    traffic: diffTraffic(end.traffic, start.traffic),
    simulator: {
      sends: end.sim.sends - start.sim.sends,
      rejectedSends: end.sim.rejectedSends - start.sim.rejectedSends,
      authentications: end.sim.authentications - start.sim.authentications,
      reportPosts: end.sim.reports.webhook.posts - start.sim.reports.webhook.posts,
      moPosts: end.sim.mo.webhookPosts - start.sim.mo.webhookPosts,
    },
  };
};

// ---- cost ----

/** The request charge of each front door a deployment can have, on its webhook requests. */
const FRONT_LINES: Record<WebhookFront, { readonly line: string; readonly unitPrice: number }> = {
  'rest-api': { line: 'API Gateway REST requests', unitPrice: PRICES.apiGatewayRestRequest },
  'function-url': {
    line: 'Lambda function URL requests',
    unitPrice: PRICES.lambdaFunctionUrlRequest,
  },
};

/**
 * Cost lines: what is billed, units per message, USD per million messages. The webhook requests
 * are priced as the deployed `front` bills them (see `deployed.ts`).
 */
export const costLines = (phase: PhaseFigures, front: WebhookFront) => {
  const { calls, messages } = phase;
  const per = (units: number) => units / messages;
  const dynamoWrite = (key: string) =>
    key.startsWith('DynamoDB ') &&
    /^DynamoDB (PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)\b/.test(key);
  const dynamoRead = (key: string) =>
    /^DynamoDB (GetItem|Query|Scan|BatchGetItem|TransactGetItems)\b/.test(key);
  const s3Put = (key: string) =>
    /^S3 (PutObject|CopyObject|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|ListObjects)/.test(
      key,
    );
  const s3Get = (key: string) => key.startsWith('S3 ') && !s3Put(key) && !key.includes('Delete');
  // Empty receives are the pollers waiting: a cost per hour, not per message (see the docs).
  const sqsBilled = (key: string) => key.startsWith('SQS ') && !key.endsWith('(empty)');
  const lambdaInvocations = Object.values(phase.lambda).reduce((s, l) => s + l.invocations, 0);
  const gbSeconds = (Object.keys(phase.lambda) as LambdaName[]).reduce(
    (sum, name) => sum + (phase.lambda[name].ms / 1_000) * (LAMBDA_MEMORY_MB[name] / 1_024),
    0,
  );
  const perMillion = (price: number) => `$${round(price * 1e6, 4)} / 1M`;
  const frontLine = FRONT_LINES[front];
  const lines: Array<{ line: string; price: string; unitPrice: number; units: number }> = [
    {
      line: `${frontLine.line} (deployed front)`,
      price: perMillion(frontLine.unitPrice),
      unitPrice: frontLine.unitPrice,
      units: sumWhere(calls, isKey('webhooks POST')),
    },
    {
      line: 'Lambda requests',
      price: perMillion(PRICES.lambdaRequest),
      unitPrice: PRICES.lambdaRequest,
      units: lambdaInvocations,
    },
    {
      line: 'Lambda GB-seconds (arm64)',
      price: `$${PRICES.lambdaArmGbSecond} / GB-s`,
      unitPrice: PRICES.lambdaArmGbSecond,
      units: gbSeconds,
    },
    {
      line: 'DynamoDB write request units',
      price: perMillion(PRICES.dynamoDbWriteRequestUnit),
      unitPrice: PRICES.dynamoDbWriteRequestUnit,
      units: sumWhere(calls, dynamoWrite, 'units'),
    },
    {
      line: 'DynamoDB read request units',
      price: perMillion(PRICES.dynamoDbReadRequestUnit),
      unitPrice: PRICES.dynamoDbReadRequestUnit,
      units: sumWhere(calls, dynamoRead, 'units'),
    },
    {
      line: 'DynamoDB Streams GetRecords',
      price: `free from Lambda (else ${perMillion(PRICES.dynamoDbStreamsReadRequest)})`,
      unitPrice: 0,
      units: sumWhere(calls, isKey('DynamoDB Streams GetRecords')),
    },
    {
      line: 'SQS requests (64 KB chunks)',
      price: perMillion(PRICES.sqsRequest),
      unitPrice: PRICES.sqsRequest,
      units: sumWhere(calls, sqsBilled, 'units'),
    },
    {
      line: 'EventBridge events (64 KB chunks)',
      price: perMillion(PRICES.eventBridgeEvent),
      unitPrice: PRICES.eventBridgeEvent,
      units: sumWhere(calls, isKey('EventBridge PutEvents'), 'units'),
    },
    {
      line: 'EventBridge archive (GB processed)',
      price: `$${PRICES.eventBridgeArchiveGb} / GB`,
      unitPrice: PRICES.eventBridgeArchiveGb,
      units: phase.eventBytes / 1024 ** 3,
    },
    {
      line: 'S3 PUT-class requests',
      price: perMillion(PRICES.s3PutRequest),
      unitPrice: PRICES.s3PutRequest,
      units: sumWhere(calls, s3Put),
    },
    {
      line: 'S3 GET-class requests',
      price: perMillion(PRICES.s3GetRequest),
      unitPrice: PRICES.s3GetRequest,
      units: sumWhere(calls, s3Get),
    },
  ];
  return lines.map((l) => ({
    ...l,
    unitsPerMessage: per(l.units),
    usdPerMillion: per(l.units) * l.unitPrice * 1e6,
  }));
};

export const roundCalls = (calls: CallSnapshot) =>
  Object.fromEntries(
    Object.entries(calls).map(([key, t]) => [
      key,
      { ...t, ms: round(t.ms, 1), units: round(t.units, 2) },
    ]),
  );

/** A priced line: counted or modelled units of one billed item, and their cost. */
export interface PricedLine {
  readonly line: string;
  readonly price: string;
  readonly unitPrice: number;
  readonly units: number;
  readonly unitsPerMessage: number;
  readonly usdPerMillion: number;
  /** How a modelled line's units were reached. */
  readonly basis?: string;
}

export const roundCost = (line: PricedLine) => ({
  line: line.line,
  price: line.price,
  unitPriceUsd: line.unitPrice,
  units: significant(line.units),
  unitsPerMessage: significant(line.unitsPerMessage),
  usdPerMillionMessages: round(line.usdPerMillion, 4),
  ...(line.basis === undefined ? {} : { basis: line.basis }),
});

// ---- tables ----

export const callsTable = (outbound: PhaseFigures, inbound: PhaseFigures): Table => {
  const keys = [...new Set([...Object.keys(outbound.calls), ...Object.keys(inbound.calls)])].sort();
  const row = (key: string): Cell[] => {
    const out = outbound.calls[key];
    const inn = inbound.calls[key];
    return [
      key,
      out?.calls ?? 0,
      ratio(out?.calls ?? 0, outbound.messages),
      ratio(out?.units ?? 0, outbound.messages),
      inn?.calls ?? 0,
      ratio(inn?.calls ?? 0, inbound.messages),
      ratio(inn?.units ?? 0, inbound.messages),
    ];
  };
  return {
    title:
      'end-to-end: calls per delivered message (units: DynamoDB capacity units, SQS/EventBridge 64 KB chunks)',
    columns: [
      'service operation [table] / route',
      'outbound calls',
      'per recipient',
      'units per recipient',
      'inbound calls',
      'per inbound msg',
      'units per inbound msg',
    ],
    rows: keys.map(row),
  };
};

export const lambdaTable = (outbound: PhaseFigures, inbound: PhaseFigures): Table => ({
  title:
    'end-to-end: Lambda invocations and measured handler time (local; see docs for the method)',
  columns: [
    'function',
    'memory MB',
    'outbound invocations',
    'ms per recipient',
    'inbound invocations',
    'ms per inbound msg',
  ],
  rows: (Object.keys(LAMBDA_MEMORY_MB) as LambdaName[]).map((name) => [
    name,
    LAMBDA_MEMORY_MB[name],
    outbound.lambda[name].invocations,
    ratio(outbound.lambda[name].ms, outbound.messages, 2),
    inbound.lambda[name].invocations,
    ratio(inbound.lambda[name].ms, inbound.messages, 2),
  ]),
});

export const costTable = (
  outbound: readonly PricedLine[],
  inbound: readonly PricedLine[],
  total: (lines: readonly PricedLine[]) => number,
): Table => ({
  title: `end-to-end: cost per million messages, USD (${PRICE_REGION} list prices of ${PRICES_AS_OF})`,
  columns: [
    'billed item',
    'list price',
    'units per recipient',
    'USD per 1M recipients',
    'units per inbound msg',
    'USD per 1M inbound',
  ],
  rows: [
    ...outbound.map((line, index): Cell[] => {
      const inn = inbound[index];
      return [
        line.line,
        line.price,
        line.unitsPerMessage,
        round(line.usdPerMillion, 4),
        inn?.unitsPerMessage ?? 0,
        round(inn?.usdPerMillion ?? 0, 4),
      ];
    }),
    ['total', '', '', round(total(outbound), 2), '', round(total(inbound), 2)],
  ],
});
