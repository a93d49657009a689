import { formatChecks, runDoctor } from '../../ops/doctor.ts';
import { localDoctorSources, stackDoctorSources } from '../../ops/doctor-sources.ts';
import type { CommandSpec } from '../framework.ts';

export const doctorCommand: CommandSpec = {
  summary: 'check a deployed stack (or the local run) end to end, with the fix for each problem',
  usage: `msgbridge doctor [--invoke]

Answers "does it work?" after cdk deploy, one line per check (✔ fine, ✗ wrong with its fix, –
not checked here): the gateway credentials secret filled in and well-formed; a gateway token in
the state table and still valid; the egress addresses, and whether the gateway accepts calls from
them (a token renewed within the hour shows it did); DynamoDB and S3 gateway endpoints on the
route tables of the callers' subnets (read from EC2 in an existing VPC); each webhook URL
answering 404 to a wrong secret and the contract's answer to an empty list with the right one;
every event source mapping enabled and not failing; every dead-letter and on-failure queue empty; no alarm in ALARM; every
schedule enabled; the account's unreserved concurrency; and the account's quotas (Service Quotas
for EventBridge PutEvents and invocations, Lambda's concurrency) against the throughput the stack
is configured for (send-messages' TPS_QUOTA), naming the quota to raise and to what.

Read-only: the webhook probes post an empty list, which stores nothing. With --invoke (a stack
only) it runs refresh-token once, from the egress addresses, and reports the gateway's answer:
20001 or 29025 means "register these addresses in the gateway console".
Exit code 1 when a check fails.`,
  options: { invoke: { type: 'boolean' } },
  run: async (context) => {
    const target = await context.target();
    const sources =
      target.kind === 'stack'
        ? await stackDoctorSources(target, context.deps.aws)
        : await localDoctorSources(target);
    const checks = await runDoctor(sources, {
      now: context.deps.now?.() ?? new Date(),
      invoke: context.flag('invoke'),
    });
    const failed = checks.filter((check) => check.ok === false).length;
    context.out.emit({ target: target.describe(), checks }, () => {
      context.out.line(`msgbridge doctor: the ${target.describe()}`);
      for (const line of formatChecks(checks)) context.out.line(context.out.times(line));
      context.out.line(
        failed === 0
          ? `all ${checks.filter((check) => check.ok === true).length} checks passed`
          : `${failed} of ${checks.length} checks failed`,
      );
    });
    return failed === 0 ? 0 : 1;
  },
};
