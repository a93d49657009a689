/**
 * Every "Delivery Report Received" carries `messageStatus`, the message's status after that report
 * (issue 35, item 7): forward-only, so a report stored after a delivery never presents the message
 * as undelivered, whatever order and however concurrently the reports arrive.
 */
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { type ReceiveDeps, receiveReports } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';

const NOW = new Date('2026-11-21T00:31:00.000Z');
const deps = (store: FakeEventStore): ReceiveDeps => ({
  store,
  now: () => NOW,
  retentionDays: 35,
  concurrency: 8,
});

/** One webhook body with one report of message `index`. */
const report = (index: number, resultCode: string, ch = 'MSGR') =>
  JSON.stringify({ rptCnt: 1, rptLst: [reportItem(index, { resultCode, ch })] });

/** The reports of a message as stored, in the order they were stored. */
const storedReports = (store: FakeEventStore, msgKey: string) =>
  store
    .details('report')
    .filter((detail) => detail.data.msgKey === msgKey)
    .map((detail) => ({
      resultCode: detail.data.resultCode,
      delivered: detail.data.delivered,
      messageStatus: detail.data.messageStatus,
    }));

const RANK: Record<string, number> = { uncertain: 1, failed: 2, delivered: 3 };
const ownStatus = (code: unknown) =>
  code === '10000' ? 'delivered' : code === '32114' ? 'uncertain' : 'failed';

describe('messageStatus of a delivery report', () => {
  it('keeps a delivered message delivered when "success uncertain" (32114) comes after 10000', async () => {
    // Prepare
    const store = new FakeEventStore();

    // Act
    await receiveReports(report(1, '10000'), deps(store));
    await receiveReports(report(1, '32114'), deps(store));

    // Assess: the report itself stays what the gateway said; the message stays delivered
    expect(storedReports(store, 'M0000000001')).toEqual([
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
      { resultCode: '32114', delivered: false, messageStatus: 'delivered' },
    ]);
  });

  it('moves an uncertain message to delivered when 10000 follows 32114', async () => {
    // Prepare
    const store = new FakeEventStore();

    // Act
    await receiveReports(report(2, '32114'), deps(store));
    await receiveReports(report(2, '10000'), deps(store));

    // Assess
    expect(storedReports(store, 'M0000000002')).toEqual([
      { resultCode: '32114', delivered: false, messageStatus: 'uncertain' },
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
    ]);
  });

  it('ranks a final failure above uncertain, and a delivery above both', async () => {
    // Prepare
    const store = new FakeEventStore();

    // Act
    await receiveReports(report(3, '32004'), deps(store));
    await receiveReports(report(3, '32114'), deps(store));
    await receiveReports(report(3, '10000'), deps(store));
    await receiveReports(report(3, '32004', 'SMS'), deps(store));

    // Assess
    expect(storedReports(store, 'M0000000003').map((r) => r.messageStatus)).toEqual([
      'failed',
      'failed',
      'delivered',
      'delivered',
    ]);
  });

  it('leaves the status alone on a redelivered report (a duplicate, no second event)', async () => {
    // Prepare
    const store = new FakeEventStore();
    await receiveReports(report(4, '32114'), deps(store));

    // Act
    const again = await receiveReports(report(4, '32114'), deps(store));
    await receiveReports(report(4, '32004'), deps(store));

    // Assess
    expect(again).toMatchObject({ stored: 0, duplicates: 1 });
    expect(storedReports(store, 'M0000000004').map((r) => r.messageStatus)).toEqual([
      'uncertain',
      'failed',
    ]);
  });

  it('never stores an undelivered status after a delivery, with reports arriving at once and out of order', async () => {
    // Prepare: for 30 messages, the same three reports in every order, posted at once
    const store = new FakeEventStore();
    const orders = [
      ['10000', '32114', '32004'],
      ['32114', '10000', '32004'],
      ['32004', '32114', '10000'],
      ['32114', '32004', '10000'],
      ['10000', '32004', '32114'],
      ['32004', '10000', '32114'],
    ];
    const posts = Array.from({ length: 30 }, (_, index) =>
      (orders[index % orders.length] ?? []).map((code, n) =>
        report(100 + index, code, code === '32004' ? 'SMS' : n % 2 === 0 ? 'MSGR' : 'RCS'),
      ),
    ).flat();

    // Act
    await Promise.all(posts.map((body) => receiveReports(body, deps(store))));

    // Assess: per message, statuses in storing order never go back, each at least its own
    // report's, and every report stored after the delivery says delivered
    for (let index = 0; index < 30; index += 1) {
      const reports = storedReports(store, `M${String(100 + index).padStart(10, '0')}`);
      expect(reports).toHaveLength(3);
      const ranks = reports.map((r) => RANK[String(r.messageStatus)] ?? 0);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      for (const r of reports) {
        expect(ranks[reports.indexOf(r)]).toBeGreaterThanOrEqual(
          RANK[ownStatus(r.resultCode)] ?? 9,
        );
      }
      const delivery = reports.findIndex((r) => r.resultCode === '10000');
      expect(reports.slice(delivery).map((r) => r.messageStatus)).toEqual(
        reports.slice(delivery).map(() => 'delivered'),
      );
    }
  });
});
