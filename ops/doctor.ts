/**
 * `msgbridge doctor`: does a deployed stack (or the local run) work? Each check reads what the
 * deployment shows — the secrets, the token in the state table, the gateway endpoints of an
 * existing VPC, the webhook URLs' answers, the event source mappings, the dead-letter and
 * on-failure queues, the alarms, the schedules, the account's concurrency — and says what is
 * wrong and how to fix it. Nothing is written: the
 * webhook probes post an empty list, which the receivers answer without storing anything. Only
 * `--invoke` changes something, by running refresh-token once (it stores a fresh token).
 *
 * The checks read the stack's own template (its queues, mappings, alarms and schedules) through
 * the same reader the local run deploys from (aws-semantics/cloudformation-template.ts), so both modes check the
 * same resources. The sources (ops/doctor-sources.ts) differ only in where they read them.
 *
 * This module runs the checks in order; each group is a module of its own (the gateway access,
 * the gateway endpoints, the webhooks, the deployed resources, the quotas: ops/doctor-*.ts), and
 * what they read and report is ops/doctor-ports.ts.
 */

import { credentialsCheck, egressCheck, readToken, tokenCheck } from './doctor-gateway-access.ts';
import { gatewayEndpointCheck } from './doctor-gateway-endpoints.ts';
import type { DoctorCheck, DoctorOptions, DoctorSources } from './doctor-ports.ts';
import { quotaChecks } from './doctor-quotas.ts';
import {
  alarmCheck,
  concurrencyCheck,
  mappingChecks,
  queueChecks,
  scheduleCheck,
} from './doctor-resources.ts';
import { webhookCheck } from './doctor-webhooks.ts';

/** Runs every check, in order; a check that cannot read its source fails with the reason. */
export const runDoctor = async (
  sources: DoctorSources,
  options: DoctorOptions,
): Promise<DoctorCheck[]> => {
  const checks: DoctorCheck[] = [];
  const guard = async (name: string, check: () => Promise<DoctorCheck | DoctorCheck[]>) => {
    try {
      checks.push(...[await check()].flat());
    } catch (error) {
      checks.push({
        name,
        ok: false,
        detail: `could not be read: ${error instanceof Error ? error.message : String(error)}`,
        fix: 'check the permissions of the AWS credentials this command runs with',
      });
    }
  };
  const credentials = await credentialsCheck(sources);
  checks.push(credentials);
  let token: Awaited<ReturnType<typeof readToken>> | undefined;
  await guard('gateway token', async () => {
    token = await readToken(sources);
    return tokenCheck(token, options.now, credentials.ok === true);
  });
  await guard('egress addresses', () => egressCheck(sources, token, options));
  await guard('gateway endpoints', () => gatewayEndpointCheck(sources));
  for (const kind of ['report', 'mo'] as const)
    await guard(`${kind === 'report' ? 'report' : 'inbound'} webhook`, () =>
      webhookCheck(sources, kind),
    );
  await guard('event source mappings', () => mappingChecks(sources));
  await guard('dead-letter and on-failure queues', () => queueChecks(sources));
  await guard('alarms', () => alarmCheck(sources));
  await guard('schedules', () => scheduleCheck(sources));
  await guard('account concurrency', () => concurrencyCheck(sources));
  await guard('quotas for the configured throughput', () => quotaChecks(sources));
  return checks;
};

/** The checks as lines: ✔ or ✗ (– when not checked here), and each fix under its check. */
export const formatChecks = (checks: readonly DoctorCheck[]): string[] =>
  checks.flatMap((check) => [
    `${check.ok === true ? '✔' : check.ok === false ? '✗' : '–'} ${check.name}: ${check.detail}`,
    ...(check.ok === false && check.fix ? [`    fix: ${check.fix}`] : []),
  ]);
