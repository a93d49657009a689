/** The report poller on a fresh poll harness (poll-harness.ts), as its unit tests run it. */
import {
  type PollDeps,
  pollReports,
  type ReportDelivery,
  type ReportPollingGateway,
} from '../../functions/polling/poll-use-case.ts';
import { FakeReportGateway, harness } from './poll-harness.ts';

export type ReportPollerOptions = Parameters<typeof harness>[0] & {
  /** Clock time each gateway call takes. */
  readonly latencyMs?: number;
};

/**
 * A report poller on a fresh harness whose gateway answers `script`, each call taking
 * `latencyMs`. `poll` runs it once (in polling mode unless told); `pollAgain` is a second run
 * (owner run-2, 30 s) over a gateway answering `next`.
 */
export const reportPoller = (
  script: ConstructorParameters<typeof FakeReportGateway>[1],
  { latencyMs, ...options }: ReportPollerOptions = {},
) => {
  const h = harness<ReportPollingGateway>(options);
  const gateway = new FakeReportGateway(h.clock, script, h.store, latencyMs);
  return {
    h,
    gateway,
    poll: (
      overrides: Partial<PollDeps<ReportPollingGateway>> = {},
      delivery: ReportDelivery = 'polling',
    ) => pollReports(h.deps(gateway, overrides), delivery),
    pollAgain: (next: ConstructorParameters<typeof FakeReportGateway>[1]) =>
      pollReports(
        h.deps(new FakeReportGateway(h.clock, next, h.store), {
          owner: 'run-2',
          deadline: h.clock.now() + 30_000,
        }),
        'polling',
      ),
  };
};
