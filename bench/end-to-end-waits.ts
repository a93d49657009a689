/**
 * The end-to-end scenario's waits: for the local timers' job runs to be out of the way, and for a
 * condition.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type CallCounter, sumWhere } from './call-counter.ts';

/**
 * The local run's schedules fire at start and then at the template's rates, each a whole number of
 * minutes: a run can start only on a minute from the start.
 */
const JOB_PERIOD_MS = 60_000;

/**
 * Waits until the table calls stop for a second: the scheduled jobs' runs (token refresh,
 * reconcile-status's report checks and unknown outcomes, the attachment sweep) are no phase's
 * work and must not be counted as the messages'.
 */
export const waitForQuietTables = async (counter: CallCounter) => {
  const tableCalls = () =>
    sumWhere(counter.snapshot(), (key) => key.startsWith('DynamoDB ') && !key.includes('Streams'));
  const deadline = Date.now() + 30_000;
  for (let last = -1; Date.now() < deadline; ) {
    const now = tableCalls();
    if (now === last) return;
    last = now;
    await sleep(1_000);
  }
};

/**
 * Makes the next `phaseMs` free of the scheduled jobs' timer runs (every minute from the bridge's
 * start at `jobsStartedAt`): when the next run is due within it, waits for that run to start and
 * end first.
 */
export const awaitJobFreeWindow = async (
  counter: CallCounter,
  jobsStartedAt: number,
  phaseMs: number,
) => {
  // The timers start a little before `jobsStartedAt` is taken: 2 s of margin each way.
  const untilNextRun = JOB_PERIOD_MS - ((performance.now() - jobsStartedAt) % JOB_PERIOD_MS);
  if (untilNextRun > phaseMs + 2_000 && untilNextRun < JOB_PERIOD_MS - 2_000) return;
  await sleep(untilNextRun + 2_000);
  await waitForQuietTables(counter);
};

export const waitUntil = async (
  condition: () => boolean,
  timeoutMs: number,
  what: () => string,
) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`end-to-end: timed out waiting for ${what()}`);
    await sleep(100);
  }
};
