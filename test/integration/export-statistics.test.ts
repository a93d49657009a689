/**
 * The statistics export against the gateway simulator (manual clock) and a DynamoDB-protocol
 * table (dynalite): tracking URLs and a messenger channel with a template are created through the
 * typed clients, two days pass, and the export stores the previous KST day's figures as event
 * items; a rerun stores nothing twice, and an unknown channel fails alone.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFilterCriteria, criteriaOf } from '../../aws-semantics/lambda-event-filter.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { withStoredDetail } from '../../functions/event-table/stored-detail.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../../functions/event-table/stream-filter.ts';
import {
  type ExportStatisticsDeps,
  exportStatistics,
  StatisticsSettingsSchema,
  trackingUrlData,
} from '../../functions/statistics/export-use-case.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayManagementClient } from '../../gateway/management/messenger-client.ts';
import { GatewayStatisticsClient } from '../../gateway/statistics-client.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import { documents, dynalite, useDynalite } from '../support/dynalite-documents.ts';
import { simulatorTokens } from '../support/simulator-gateway-client.ts';

const credentials = { apiKey: 'stats-key', apiPassword: 'stats-password' };
const ADMIN = '01012345678';
const CHANNEL = '@stats-shop';
const DAY_MS = 86_400_000;

useDynalite();

let sim: Simulator;
let client: GatewayClient;
let management: GatewayManagementClient;
/** The client the deployed function makes its calls with (`composeExportStatistics`). */
let statistics: GatewayStatisticsClient;
let liveUrls: string[];
let expiredUrl: string;
const objects = new Map<string, string>();

const simNow = () => new Date(sim.clock.now());

beforeAll(async () => {
  sim = await startSimulator({
    ...credentials,
    clock: 'manual',
    accessTokenTtlSeconds: 7 * 86_400,
  });
  await createTables(localDynamoDbClient(dynalite.endpoint), {
    eventTable: 'events',
    stateTable: 'state',
  });
  const tokens = simulatorTokens(sim, credentials);
  client = new GatewayClient({ hosts: sim.hosts, tokens, timeoutMs: 2_000 });
  management = new GatewayManagementClient({ hosts: sim.hosts, tokens, timeoutMs: 2_000 });
  statistics = new GatewayStatisticsClient({ hosts: sim.hosts, tokens, timeoutMs: 2_000 });

  // From KST noon, so that the URL expiring within the hour does so on the day it was made,
  // whatever the time of day the tests run (late at night it would live into the next day).
  const kstTimeOfDay = (sim.clock.now() + 9 * 3_600_000) % DAY_MS;
  sim.clock.advance((12 * 3_600_000 - kstTimeOfDay + DAY_MS) % DAY_MS);
  // Two URLs that live for a month, one that expires within the hour.
  const expiry = (ms: number) => formatKst(sim.clock.now() + ms, 'YYYY-MM-DD HH:mm:ss');
  liveUrls = [
    await client.createClickUrl({
      urlTitle: 'spring sale',
      orgUrl: 'https://shop.example/spring',
      expDt: expiry(30 * DAY_MS),
    }),
    await client.createClickUrl({
      urlTitle: 'coupon',
      orgUrl: 'https://shop.example/coupon',
      expDt: expiry(30 * DAY_MS),
    }),
  ];
  expiredUrl = await client.createClickUrl({
    urlTitle: 'flash',
    orgUrl: 'https://shop.example/flash',
    expDt: expiry(3_600_000),
  });
  // A messenger channel, registered as an operator does, with one notification template.
  await management.requestChannelToken({ phoneNumber: ADMIN, msgrChId: CHANNEL, relay: 'r01' });
  await management.createChannel({
    msgrChId: CHANNEL,
    categoryCode: '00100010001',
    tokens: [
      { rid: 'r01', phoneNumber: ADMIN, token: simulatedChannelToken(CHANNEL, ADMIN, 'r01') },
    ],
  });
  await management.createTemplate({
    msgrChId: CHANNEL,
    templateCode: 'order-shipped',
    templateName: 'Order shipped',
    templateContent: 'Hello #{name}, your order #{order} has shipped.',
    categoryCode: '002001',
    templateMessageType: 'BA',
    templateEmphasizeType: 'NONE',
  });
  // Two days later: the day before is a whole day of the URLs' lives.
  sim.clock.advance(2 * DAY_MS);
}, 60_000);

afterAll(async () => {
  await sim?.close();
});

const deps = (): ExportStatisticsDeps => ({
  // As deployed: the statistics client; the expected figures below are read with the clients of
  // every endpoint, so the two are held to the same answers.
  trackingUrls: statistics,
  messenger: statistics,
  store: new DynamoDbEventStore('events', documents),
  sink: {
    putObject: async (key, body) => {
      objects.set(key, body);
    },
  },
  now: simNow,
  retentionDays: 35,
  settings: StatisticsSettingsSchema.parse({
    messengerChannels: [CHANNEL, '@no-such-channel'],
    messengerStatistics: ['channelNoticeRead', 'templateNoticeRead'],
    elapsedDays: [0],
  }),
});

/** The stored items, each detail read as text whichever form it was stored in. */
const storedItems = async () =>
  ((await documents.send(new ScanCommand({ TableName: 'events' }))).Items ?? []).map((item) =>
    withStoredDetail(item),
  ) as Array<Record<string, unknown> & { pk: string; sk: string; detail: string }>;

describe('export-statistics against the simulator and dynalite', () => {
  it('stores the previous KST day of every live URL and of the channel, and reports the unknown channel', async () => {
    // Prepare
    const day = formatKst(sim.clock.now() - DAY_MS, 'YYYY-MM-DD');

    // Act
    const result = await exportStatistics(deps());

    // Assess: the counts and the failure of the unknown channel only.
    expect(result).toMatchObject({
      date: day,
      urlsListed: 3,
      urlsSkipped: 1,
      eventsStored: 4,
      eventsDuplicate: 0,
    });
    expect(result.failures.map((f) => `${f.kind} ${f.subject}`).sort()).toEqual([
      `messenger @no-such-channel channelNoticeRead ${day}`,
      `messenger @no-such-channel templateNoticeRead ${day}`,
    ]);
    expect(result.failures[0]?.error).toContain('22601');

    const items = await storedItems();
    expect(items.map((item) => `${item.pk} ${item.sk}`).sort()).toEqual(
      [
        ...liveUrls.map((urlId) => `STATISTICS#tracking-url#${urlId} ${day}`),
        `STATISTICS#messenger#${CHANNEL} channelNoticeRead#${day}#0#1`,
        `STATISTICS#messenger#${CHANNEL} templateNoticeRead#${day}#0#1`,
      ].sort(),
    );
    expect(items.some((item) => item.pk.includes(expiredUrl))).toBe(false);
    // Every item carries its event, so the stream publisher puts it on the bus.
    for (const item of items) {
      expect(item).toMatchObject({ kind: 'statistics', eventId: expect.any(String) });
      expect(['Tracking Url Statistics Collected', 'Messenger Statistics Collected']).toContain(
        item.detailType,
      );
      const newImage = marshall(item) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
      const isPublishable = compileFilterCriteria(
        criteriaOf(PUBLISHABLE_RECORD_PATTERN),
        'dynamodb',
      );
      expect(isPublishable({ eventName: 'INSERT', dynamodb: { NewImage: newImage } })).toBe(true);
    }

    // The figures are the gateway's figures for that day.
    for (const urlId of liveUrls) {
      const item = items.find((each) => each.pk === `STATISTICS#tracking-url#${urlId}`);
      const [listed] = (await client.listClickUrls(1)).filter((url) => url.urlId === urlId);
      if (!listed) throw new Error(`url ${urlId} is not listed`);
      const expected = trackingUrlData(
        day,
        listed,
        await client.urlStatsByChannel({ from: day, to: day, urlId }),
        await client.urlStatsClickDay({ from: day, to: day, urlId }),
      );
      expect(JSON.parse(item?.detail ?? '{}').data).toEqual(expected);
      expect(expected.sentOnDate.length).toBeGreaterThan(0);
    }
    const templateItem = items.find((each) => each.sk.startsWith('templateNoticeRead'));
    expect(JSON.parse(templateItem?.detail ?? '{}').data).toMatchObject({
      statistic: 'templateNoticeRead',
      msgrChId: CHANNEL,
      sendDate: day,
      elapsedDay: 0,
      rows: [{ templateCode: 'order-shipped', readCount: expect.any(Number) }],
    });

    // One JSON-lines object per kind.
    expect([...objects.keys()].sort()).toEqual([
      `statistics/messenger/dt=${day}/part.jsonl`,
      `statistics/tracking-url/dt=${day}/part.jsonl`,
    ]);
    expect(
      objects.get(`statistics/tracking-url/dt=${day}/part.jsonl`)?.trimEnd().split('\n'),
    ).toHaveLength(2);
  });

  it('stores nothing twice when the same day is exported again', async () => {
    // Prepare
    const before = await storedItems();

    // Act: the schedule's retry, ten minutes later.
    sim.clock.advance(600_000);
    const rerun = await exportStatistics(deps());

    // Assess
    expect(rerun).toMatchObject({ eventsStored: 0, eventsDuplicate: 4 });
    const after = await storedItems();
    expect(after.map((item) => item.eventId).sort()).toEqual(
      before.map((item) => item.eventId).sort(),
    );
  });
});
