import { describe, expect, it } from 'vitest';
import type { Lease } from '../../functions/commons/lease.ts';
import {
  type MoPollingGateway,
  PollTimingError,
  type ReportPollingGateway,
  runPolling,
} from '../../functions/polling/poll-use-case.ts';
import {
  FakeMoGateway,
  FakeReportGateway,
  harness,
  moPage,
  page,
  START,
} from '../support/poll-harness.ts';
import { reportPoller } from '../support/report-poller.ts';

/** One gateway for both pollers: the report endpoints of `reports`, and `listMo`. */
const bothGateways = (
  reports: FakeReportGateway,
  listMo: MoPollingGateway['listMo'],
): ReportPollingGateway & MoPollingGateway => ({
  pollReports: () => reports.pollReports(),
  confirmReports: (keys) => reports.confirmReports(keys),
  listMo,
});

describe('pollReports: deadline, lease and mode', () => {
  it('starts no poll it could not store and confirm before the deadline, and ends in time', async () => {
    // Prepare: an endless supply of pages, each call taking 1 s.
    const { h, gateway, poll } = reportPoller(() => page(2), {
      deadlineInMs: 60_000,
      latencyMs: 1_000,
    });
    const deadline = START + 60_000;

    // Act
    const outcome = await poll({ deadline });

    // Assess
    const lastPoll = gateway.polls.at(-1)?.at ?? 0;
    expect(gateway.polls.every((call) => call.at <= deadline - 15_000)).toBe(true);
    expect(lastPoll).toBeGreaterThan(deadline - 15_000 - 2_000);
    expect(h.clock.now()).toBeLessThanOrEqual(deadline);
    expect(outcome).toMatchObject({ stopped: 'deadline', pagesUnconfirmed: 0 });
    expect(outcome.pagesConfirmed).toBe(gateway.polls.length);
    expect(h.lease.holder).toBeUndefined();
  });

  it('does not sleep past the deadline when only empty polls come', async () => {
    // Prepare
    const { h, gateway, poll } = reportPoller([], { deadlineInMs: 50_000, latencyMs: 100 });

    // Act
    const outcome = await poll();

    // Assess: 0 s, 10.6 s, 21.2 s, 31.8 s; a fifth at 42.4 s would leave less than 15 s.
    expect(gateway.polls.map((call) => call.at - START)).toEqual([0, 10_600, 21_200, 31_800]);
    expect(h.clock.now()).toBeLessThanOrEqual(START + 50_000);
    expect(outcome).toMatchObject({ stopped: 'deadline', polls: 4, emptyPolls: 4 });
  });

  it('stops polling as soon as a renewal finds the lease lost', async () => {
    // Prepare: pages keep coming; the second renewal fails.
    const { h, gateway, poll } = reportPoller(() => page(1), {
      deadlineInMs: 300_000,
      latencyMs: 1_000,
    });
    h.lease.renewals = [true, false];

    // Act
    const outcome = await poll();

    // Assess: renewals come every 5 s of polling (2 s per page), so about 10 s in.
    expect(outcome.stopped).toBe('lease-lost');
    expect(h.lease.calls.filter((call) => call.startsWith('renew'))).toHaveLength(2);
    expect(gateway.polls.length).toBeGreaterThan(2);
    expect(gateway.polls.length).toBeLessThan(10);
    expect(outcome.pagesConfirmed).toBe(gateway.polls.length);
  });

  it('does not poll at all while another poller holds the lease', async () => {
    // Prepare
    const { h, gateway, poll } = reportPoller([page(1)]);
    h.lease.holder = 'other-run';

    // Act
    const outcome = await poll();

    // Assess
    expect(outcome).toMatchObject({ stopped: 'lease-busy', polls: 0 });
    expect(gateway.polls).toEqual([]);
    expect(h.lease.holder).toBe('other-run');
  });

  it('returns at once in webhook mode, without the lease or a poll', async () => {
    // Prepare
    const { h, gateway, poll } = reportPoller([page(1)]);

    // Act
    const outcome = await poll({}, 'webhook');

    // Assess
    expect(outcome).toMatchObject({ stopped: 'webhook-mode', polls: 0 });
    expect(gateway.polls).toEqual([]);
    expect(h.lease.calls).toEqual([]);
  });

  it('refuses timing that would break the 10 s rule or let the lease lapse', async () => {
    // Prepare
    const { gateway, poll } = reportPoller([]);

    // Act
    const result = poll({ timing: { emptyPollWaitMs: 9_000, leaseTtlMs: 20_000 } }, 'both');

    // Assess
    await expect(result).rejects.toBeInstanceOf(PollTimingError);
    await expect(result).rejects.toMatchObject({
      problems: [expect.stringContaining('emptyPollWaitMs'), expect.stringContaining('leaseTtlMs')],
    });
    expect(gateway.polls).toEqual([]);
  });
});

describe('runPolling', () => {
  it('polls MO messages in webhook mode without polling reports', async () => {
    // Prepare
    const h = harness<ReportPollingGateway & MoPollingGateway>({ deadlineInMs: 20_000 });
    const reports = new FakeReportGateway(h.clock, [page(1)], h.store);
    const mo = new FakeMoGateway(h.clock, [moPage(7)]);
    const gateway = bothGateways(reports, () => mo.listMo());

    // Act
    const run = await runPolling({ reportDelivery: 'webhook', moPolling: true }, h.deps(gateway));

    // Assess
    expect(run.reports?.stopped).toBe('webhook-mode');
    expect(run.inbound?.messagesStored).toBe(1);
    expect(reports.polls).toEqual([]);
    expect(run.errors).toEqual([]);
  });

  it('lets one poller finish when the other fails, and reports the failure', async () => {
    // Prepare
    const h = harness<ReportPollingGateway & MoPollingGateway>({ deadlineInMs: 20_000 });
    const reports = new FakeReportGateway(h.clock, [page(2)], h.store);
    const broken = new Error('listMo exploded');
    const gateway = bothGateways(reports, () => Promise.reject(broken));
    // Both pollers share the fake lease, so give each its own holder check.
    const leases = new Map<string, string>();
    const lease: Lease = {
      acquire: async (name, owner) => (leases.has(name) ? false : !!leases.set(name, owner)),
      renew: async () => true,
      release: async (name) => {
        leases.delete(name);
      },
    };

    // Act
    const run = await runPolling(
      { reportDelivery: 'both', moPolling: true },
      h.deps(gateway, { lease }),
    );

    // Assess
    expect(run.errors).toEqual([broken]);
    expect(run.inbound).toBeUndefined();
    expect(run.reports?.reportsStored).toBe(2);
    expect(leases.size).toBe(0);
  });
});
