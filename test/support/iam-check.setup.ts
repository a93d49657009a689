/**
 * Setup file of the tiers that run the bridge (e2e, browser, chaos): after each test
 * file, every AWS call each local run of that file made is replayed against the IAM policies of
 * the template it deployed (test/support/iam-replay.ts). A call the deployed role would refuse
 * fails the file, naming the function, the call and the statement its role lacks.
 *
 * With MSGBRIDGE_IAM_REPORT set to a directory, each file also writes what it checked there
 * (scripts/run-tests.mjs adds the files up into one figure for the run).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { type ObservedBridge, observeBridges } from '../../local/bridge-observers.ts';
import { describeDenials, replayIam } from './iam-replay.ts';

const runs: ObservedBridge[] = [];
observeBridges((bridge) => runs.push(bridge));

afterAll(async () => {
  if (runs.length === 0) return;
  const results = await Promise.all(
    runs.map((run) => replayIam(run.deployment, run.recorder.calls)),
  );
  const report = process.env.MSGBRIDGE_IAM_REPORT;
  if (report) {
    mkdirSync(report, { recursive: true });
    const file = expect.getState().testPath ?? 'unknown';
    writeFileSync(
      join(report, `${Buffer.from(file).toString('base64url').slice(-80)}.json`),
      JSON.stringify({
        file,
        runs: runs.length,
        checked: results.reduce((sum, result) => sum + result.checked, 0),
        denials: results.flatMap((result) => result.denials).length,
        unreadable: results.flatMap((result) => result.unreadable),
        grants: results.map((result) => result.grants),
      }),
    );
  }
  const denials = results.flatMap((result) => result.denials);
  const unreadable = [...new Set(results.flatMap((result) => result.unreadable))];
  if (denials.length > 0 || unreadable.length > 0)
    throw new Error(
      [
        denials.length > 0
          ? `The deployed roles would refuse ${denials.length} AWS call(s) this file's local runs made:\n${describeDenials(denials)}`
          : '',
        unreadable.length > 0
          ? `AWS calls the IAM replay cannot read (map them in test/support/iam-replay.ts):\n${unreadable.join('\n')}`
          : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
});
