import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { EventStore } from '../../functions/event-table/ports.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import {
  pollInbound,
  pollReports,
  type ReportPollingGateway,
  type ReportPollOutcome,
} from '../../functions/polling/poll-use-case.ts';
import { S3PolledPageQuarantine } from '../../functions/polling/s3-polled-page-quarantine.ts';
import type { GatewayClient } from '../../gateway/client.ts';
import type { SimulatorOptionsInput } from '../../simulator/index.ts';
import { cleanups, documents, useDynalite } from '../support/dynalite-documents.ts';
import { BUCKET, fauxqsS3Client, startFauxqsProcess as startS3 } from '../support/fauxqs-s3.ts';
import { scanItems } from '../support/scan-items.ts';
import { type PollBridge, startPollBridge } from '../support/simulated-poll-bridge.ts';
import { startWebhookReceivers } from '../support/webhook-receivers.ts';

const credentials = { apiKey: 'poll-key', apiPassword: 'poll-password' };
const SECRET = 'poll-test-secret-0123456789';

useDynalite();

/** Fresh tables, a simulator on a manual clock, and the gateway client of the bridge. */
const bridge = (
  /** More simulator options, once the tables exist (a webhook receiver needs its store). */
  simulator: (store: EventStore) => Promise<Partial<SimulatorOptionsInput>> = async () => ({}),
): Promise<PollBridge> =>
  startPollBridge({
    credentials,
    simulator: async (receive) => ({
      reportDelayMs: 1_000,
      failureRate: 0.2,
      reportBatchSize: 7,
      seed: 11,
      ...(await simulator(receive.store)),
    }),
  });

/** Sends `calls` SMS requests of 10 recipients; answers the accepted `msgKey`s. */
const send = async (client: GatewayClient, calls: number): Promise<string[]> => {
  const msgKeys: string[] = [];
  for (let call = 0; call < calls; call++) {
    const outcome = await client.sendSms(smsBody(10));
    if (outcome.kind !== 'immediate') throw new Error('expected an immediate send');
    msgKeys.push(...outcome.results.map((result) => String(result.msgKey)));
  }
  return msgKeys;
};

/** Every item of the event table whose `pk` starts with `prefix`. */
const itemsOf = async (table: string, prefix: string): Promise<Record<string, unknown>[]> =>
  (await scanItems(documents, table)).filter((item) => String(item.pk).startsWith(prefix));

const msgKeysIn = (items: Record<string, unknown>[]) =>
  items.map((item) => String(item.pk).slice('REPORT#'.length)).sort();

const viaOf = (item: Record<string, unknown>): string =>
  JSON.parse(String(storedDetail(item))).metadata.via;

/** One run per simulated minute, each ending by 50 s into its minute, as the schedule runs them. */
const everyMinute = async (
  b: PollBridge,
  minutes: number,
  gatewayFor: (minute: number) => ReportPollingGateway,
): Promise<ReportPollOutcome[]> => {
  const outcomes: ReportPollOutcome[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    const start = b.sim.clock.now();
    outcomes.push(
      await pollReports(
        b.deps(gatewayFor(minute), { owner: `run-${minute}`, deadline: start + 50_000 }),
        'polling',
      ),
    );
    await b.sim.advance(start + 60_000 - b.sim.clock.now());
  }
  return outcomes;
};

describe('report polling against the simulator', () => {
  it('polls, stores once and confirms the reports of sent messages, within the 10 s rule', async () => {
    // Prepare
    const b = await bridge();
    const accepted = await send(b.client, 3);

    // Act
    const outcome = await pollReports(b.deps(b.client), 'polling');

    // Assess
    const items = await itemsOf(b.eventTable, 'REPORT#');
    expect(msgKeysIn(items)).toEqual([...accepted].sort());
    expect(items.every((item) => viaOf(item) === 'polling')).toBe(true);
    const polling = b.sim.snapshot().reports.polling;
    expect(polling).toMatchObject({
      rejectedPolls: 0,
      confirmed: 30,
      awaitingConfirm: 0,
      available: 0,
      returnedUnconfirmed: 0,
    });
    expect(outcome).toMatchObject({
      stopped: 'deadline',
      polls: polling.polls,
      emptyPolls: polling.emptyPolls,
      reportsPolled: 30,
      reportsStored: 30,
      reportsDuplicate: 0,
      pagesUnconfirmed: 0,
    });
    // 30 reports in pages of 7: five pages, every one confirmed.
    expect(outcome.pagesConfirmed).toBe(polling.polls - polling.emptyPolls);
    expect(outcome.pagesConfirmed).toBe(5);
  });

  it('gets the same reports again 120 s after a missed confirm, and stores each once', async () => {
    // Prepare: the first run "crashes" after storing: its confirms never reach the gateway.
    const b = await bridge();
    const accepted = await send(b.client, 2);
    let droppedConfirms = 0;
    const crashing: ReportPollingGateway = {
      pollReports: () => b.client.pollReports(),
      confirmReports: async () => {
        droppedConfirms++;
      },
    };

    // Act: minute 0 with the crashing gateway, then three normal minutes.
    const [first, ...later] = await everyMinute(b, 4, (minute) =>
      minute === 0 ? crashing : b.client,
    );

    // Assess
    const items = await itemsOf(b.eventTable, 'REPORT#');
    expect(msgKeysIn(items)).toEqual([...accepted].sort());
    expect(first).toMatchObject({ reportsStored: 20, reportsDuplicate: 0 });
    expect(droppedConfirms).toBe(3);
    const redelivered = later.reduce((sum, run) => sum + run.reportsDuplicate, 0);
    expect(redelivered).toBe(20);
    expect(later.reduce((sum, run) => sum + run.reportsStored, 0)).toBe(0);
    expect(b.sim.snapshot().reports.polling).toMatchObject({
      returnedUnconfirmed: 20,
      confirmed: 20,
      awaitingConfirm: 0,
      available: 0,
      rejectedPolls: 0,
    });
  });

  it('stores each report once when the gateway both posts and is polled', async () => {
    // Prepare: the real report webhook on loopback; its first puts hit a storage outage, so the
    // gateway posts those bodies again 10 s later while the poller has already polled them.
    let outagePuts = 10;
    const b = await bridge(async (store) => {
      const flaky: EventStore = {
        putIfAbsent: async (record: EventRecord) => {
          if (outagePuts > 0) {
            outagePuts--;
            throw Object.assign(new Error('Service unavailable'), { name: 'InternalServerError' });
          }
          return store.putIfAbsent(record);
        },
      };
      const receive = { store: flaky, now: () => new Date(), retentionDays: 35, concurrency: 16 };
      const webhooks = await startWebhookReceivers(receive, SECRET);
      cleanups.push(() => webhooks.close());
      return { reportDelivery: 'both', reportWebhookUrl: webhooks.webhookUrls(SECRET).report };
    });
    const accepted = await send(b.client, 2);

    // Act
    const outcome = await pollReports(b.deps(b.client), 'both');

    // Assess
    const items = await itemsOf(b.eventTable, 'REPORT#');
    expect(msgKeysIn(items)).toEqual([...accepted].sort());
    const via = items.map(viaOf);
    expect(via.filter((v) => v === 'polling').length).toBeGreaterThan(0);
    expect(via.filter((v) => v === 'webhook').length).toBeGreaterThan(0);
    expect(outcome.reportsStored + outcome.reportsDuplicate).toBe(20);
    expect(outcome.reportsStored).toBe(via.filter((v) => v === 'polling').length);
    const snapshot = b.sim.snapshot().reports;
    expect(snapshot.webhook).toMatchObject({ bodiesPending: 0, bodiesDelivered: 3 });
    expect(snapshot.webhook.retries).toBeGreaterThan(0);
    expect(snapshot.polling).toMatchObject({ confirmed: 20, rejectedPolls: 0, awaitingConfirm: 0 });
  });

  it('lets only one of several pollers poll at a time', async () => {
    // Prepare: two runs start together; a third starts while the winner is waiting.
    const b = await bridge();
    const accepted = await send(b.client, 2);
    let late: Promise<ReportPollOutcome> | undefined;
    const sleep = async (ms: number) => {
      late ??= pollReports(b.deps(b.client, { owner: 'run-c' }), 'polling');
      await b.sim.advance(ms);
    };

    // Act
    const runs = await Promise.all([
      pollReports(b.deps(b.client, { owner: 'run-a', sleep }), 'polling'),
      pollReports(b.deps(b.client, { owner: 'run-b', sleep }), 'polling'),
    ]);
    const third = await late;

    // Assess
    const winners = runs.filter((run) => run.stopped === 'deadline');
    const losers = runs.filter((run) => run.stopped === 'lease-busy');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(third).toMatchObject({ stopped: 'lease-busy', polls: 0 });
    expect(losers[0]).toMatchObject({ polls: 0, reportsStored: 0 });
    const polling = b.sim.snapshot().reports.polling;
    expect(winners[0]?.polls).toBe(polling.polls);
    expect(polling).toMatchObject({ rejectedPolls: 0, confirmed: 20 });
    expect(msgKeysIn(await itemsOf(b.eventTable, 'REPORT#'))).toEqual([...accepted].sort());
  });
});

describe('MO polling against the simulator', () => {
  it('stores every injected MO message once, including those that arrive during the run', async () => {
    // Prepare: no MO webhook, so the messages wait for GET /mo/v1/msg.
    const b = await bridge();
    const first = b.sim.injectMo([
      { moType: 'SMSMO', moCallback: '01011112222', moNumber: '0212345678', moMsg: '문의드립니다' },
      { moType: 'LMSMO', moCallback: '01033334444', moNumber: '0212345678', moMsg: '긴 문의' },
      {
        moType: 'MMSMO',
        moCallback: '01055556666',
        moNumber: '0212345678',
        moMsg: '사진',
        attachments: [{ name: 'a.jpg', contentType: 'image/jpeg', sizeBytes: 2048 }],
      },
    ]);
    let injectedLater = false;
    const later: string[] = [];
    const sleep = async (ms: number) => {
      if (!injectedLater) {
        injectedLater = true;
        later.push(
          ...b.sim
            .injectMo([
              { moType: 'SMSMO', moCallback: '01077778888', moNumber: '0212345678', moMsg: '네' },
              { moType: 'SMSMO', moCallback: '01099990000', moNumber: '0212345678', moMsg: '취소' },
            ])
            .map((item) => item.moKey),
        );
      }
      await b.sim.advance(ms);
    };

    // Act: one run, then the next minute's run, which finds nothing new.
    const outcome = await pollInbound(b.deps(b.client, { sleep }));
    await b.sim.advance(10_000);
    const next = await pollInbound(b.deps(b.client, { owner: 'run-2' }));

    // Assess
    const items = await itemsOf(b.eventTable, 'MO#');
    const expected = [...first.map((item) => item.moKey), ...later].sort();
    expect(items.map((item) => String(item.pk).slice('MO#'.length)).sort()).toEqual(expected);
    expect(items.every((item) => viaOf(item) === 'polling')).toBe(true);
    const details = items.map((item) => JSON.parse(String(storedDetail(item))));
    expect(details.find((detail) => detail.data.type === 'MMSMO')?.data.attachmentCount).toBe(1);
    expect(outcome).toMatchObject({ messagesPolled: 5, messagesStored: 5, messagesNotStored: 0 });
    expect(next).toMatchObject({ messagesPolled: 0, messagesStored: 0 });
    expect(b.sim.snapshot().mo).toMatchObject({ deliveredByQuery: 5, undelivered: 0 });
  });
});

describe('odd items on polled pages', () => {
  it('stores every message of a polled MO page with an empty contentSize', async () => {
    // Prepare: the MMS's attachment is listed with contentSize "".
    const b = await bridge();
    const injected = b.sim.injectMo([
      { moType: 'SMSMO', moCallback: '01011112222', moNumber: '0212345678', moMsg: '하나' },
      {
        moType: 'MMSMO',
        moCallback: '01033334444',
        moNumber: '0212345678',
        moMsg: '사진',
        attachments: [
          { name: 'a.jpg', contentType: 'image/jpeg', sizeBytes: 2048, emptySize: true },
        ],
      },
      { moType: 'SMSMO', moCallback: '01055556666', moNumber: '0212345678', moMsg: '셋' },
    ]);

    // Act
    const outcome = await pollInbound(b.deps(b.client));

    // Assess
    const items = await itemsOf(b.eventTable, 'MO#');
    expect(items.map((item) => String(item.pk).slice('MO#'.length)).sort()).toEqual(
      injected.map((item) => item.moKey).sort(),
    );
    const mms = items
      .map((item) => JSON.parse(String(storedDetail(item))))
      .find((detail) => detail.data.type === 'MMSMO');
    expect(mms?.data).toMatchObject({
      attachmentCount: 1,
      attachments: [{ name: 'a.jpg', sizeBytes: null }],
    });
    expect(outcome).toMatchObject({ messagesPolled: 3, messagesStored: 3, failedPolls: 0 });
  });
});

/** The event store with an outage for some keys: every put of those items throws until healed. */
const withOutage = (store: EventStore, failing: Set<string>): EventStore => ({
  putIfAbsent: async (record: EventRecord) => {
    if (failing.has(record.pk))
      throw Object.assign(new Error('Throughput exceeds the current capacity'), {
        name: 'ProvisionedThroughputExceededException',
      });
    return store.putIfAbsent(record);
  },
});

describe('durable quarantine of polled pages in S3', () => {
  let s3Server: { endpoint: string; stop(): Promise<void> };
  let s3: S3Client;
  let quarantine: S3PolledPageQuarantine;

  beforeAll(async () => {
    s3Server = await startS3();
    s3 = fauxqsS3Client(s3Server.endpoint);
    quarantine = new S3PolledPageQuarantine(BUCKET, s3);
  });

  afterAll(async () => {
    s3?.destroy();
    await s3Server?.stop();
  });

  const keysBelow = async (prefix: string): Promise<string[]> => {
    const answer = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (answer.Contents ?? []).map((object) => String(object.Key));
  };

  it('keeps a report page whose store keeps failing in S3, confirms it, and the next run stores it', async () => {
    // Prepare: one report of the first page cannot be stored during the first run.
    const b = await bridge();
    const accepted = await send(b.client, 1);
    await b.sim.advance(2_000);
    const failing = new Set([`REPORT#${accepted[3]}`]);
    const receive = {
      store: withOutage(b.store, failing),
      now: () => new Date(b.sim.clock.now()),
      retentionDays: 35,
      concurrency: 16,
    };

    // Act: a run during the outage, then a run after it.
    const first = await pollReports(b.deps(b.client, { receive, quarantine }), 'polling');
    const kept = await keysBelow('quarantine/polled/reports/');
    failing.clear();
    await b.sim.advance(60_000);
    const second = await pollReports(
      b.deps(b.client, { receive, quarantine, owner: 'run-2' }),
      'polling',
    );

    // Assess: kept and confirmed (the gateway never hands it out again), then stored from S3.
    expect(kept).toHaveLength(1);
    expect(first).toMatchObject({ pagesQuarantined: 1, pagesUnconfirmed: 0, pagesNotKept: 0 });
    expect(b.sim.snapshot().reports.polling).toMatchObject({
      confirmed: 10,
      returnedUnconfirmed: 0,
      awaitingConfirm: 0,
    });
    expect(second).toMatchObject({ pagesReingested: 1, quarantinedPagesLeft: 0, reportsStored: 1 });
    expect(msgKeysIn(await itemsOf(b.eventTable, 'REPORT#'))).toEqual([...accepted].sort());
    expect(await keysBelow('quarantine/polled/')).toEqual([]);
  });

  it('keeps an MO page that cannot be stored in S3 and stores it in the next run', async () => {
    // Prepare: the gateway hands these out once; the table refuses one of them for a whole run.
    const b = await bridge();
    const injected = b.sim.injectMo([
      { moType: 'SMSMO', moCallback: '01011112222', moNumber: '0212345678', moMsg: '하나' },
      { moType: 'SMSMO', moCallback: '01033334444', moNumber: '0212345678', moMsg: '둘' },
    ]);
    const failing = new Set([`MO#${injected[1]?.moKey}`]);
    const receive = {
      store: withOutage(b.store, failing),
      now: () => new Date(b.sim.clock.now()),
      retentionDays: 35,
      concurrency: 16,
    };

    // Act
    const first = await pollInbound(b.deps(b.client, { receive, quarantine }));
    const kept = await keysBelow('quarantine/polled/mo/');
    failing.clear();
    const second = await pollInbound(b.deps(b.client, { receive, quarantine, owner: 'run-2' }));

    // Assess
    expect(kept).toHaveLength(1);
    expect(first).toMatchObject({ messagesStored: 1, pagesQuarantined: 1, messagesNotStored: 0 });
    expect(second).toMatchObject({ pagesReingested: 1, messagesStored: 1, messagesDuplicate: 1 });
    const stored = await itemsOf(b.eventTable, 'MO#');
    expect(stored.map((item) => String(item.pk).slice('MO#'.length)).sort()).toEqual(
      injected.map((item) => item.moKey).sort(),
    );
    expect(await keysBelow('quarantine/polled/')).toEqual([]);
  });
});
