/**
 * `msgbridge doctor`'s quota checks: the account's applied quotas (Service Quotas for EventBridge,
 * Lambda's account settings for concurrency) against the throughput the deployed template is
 * configured for, and, where one is short, which quota to raise, to what, before which throughput.
 *
 * The configured throughput is the gateway's TPS quota in send-messages' environment
 * (`TPS_QUOTA`, recipients a second): at that rate each recipient's delivery report is one event
 * (two with `ACCEPTED_EVENTS` on), published in PutEvents requests of up to 10 and delivered once
 * per rule it matches (one subscriber rule per event is assumed: the doctor cannot know the
 * subscribers' rules). Inbound messages come on top, at whatever rate the gateway posts them.
 * Lambda's concurrency has to hold what the template fixes (aws-semantics/fixed-concurrency.ts)
 * plus the report receivers at that rate, 10 synchronous requests a second per execution
 * environment, one report a request at the least.
 */

import type { StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import {
  DEFAULT_QUOTAS,
  eventBridgeDemand,
  type QuotaId,
} from '../aws-semantics/default-quotas.ts';
import { fixedConcurrency } from '../aws-semantics/fixed-concurrency.ts';
import { booleanEnv, integerEnv } from '../functions/commons/environment.ts';

/** A quota's value as the account has it, and whether that is AWS's default. */
export interface AppliedQuota {
  readonly value: number;
  /** `true` when Service Quotas had no applied value and this is the default. */
  readonly isDefault: boolean;
}

/** What the quota checks read; a `DoctorSources` is one. */
export interface QuotaSources {
  readonly template: StackTemplate;
  /** A quota's applied value (Service Quotas); absent where there are none (the local run). */
  appliedQuota?(serviceCode: string, quotaCode: string): Promise<AppliedQuota>;
  accountConcurrency?(): Promise<{ readonly limit: number; readonly unreserved: number }>;
}

/** A check's outcome, as `DoctorCheck` of ops/doctor-ports.ts. */
export interface QuotaCheck {
  readonly name: string;
  readonly ok: boolean | null;
  readonly detail: string;
  readonly fix?: string;
}

/** The IAM actions these checks call, besides lambda:GetAccountSettings. */
export const QUOTA_READ_ACTIONS = [
  'servicequotas:GetServiceQuota',
  'servicequotas:GetAWSDefaultServiceQuota',
] as const;

/** Lambda's synchronous requests a second per execution environment (Lambda quotas). */
const REQUESTS_PER_ENVIRONMENT = DEFAULT_QUOTAS.synchronousRequestsPerEnvironment.otherRegions;

const number = (value: number) => Math.ceil(value).toLocaleString('en-US');

/** The throughput the template configures: the gateway quota and the events each recipient makes. */
export interface ConfiguredThroughput {
  readonly recipientsPerSecond: number;
  readonly eventsPerRecipient: number;
}

/**
 * Read as send-messages' composition reads them (functions/sending/compose.ts): `TPS_QUOTA`
 * (default 100) and `ACCEPTED_EVENTS` (`on` publishes an accepted event per recipient too).
 */
export const configuredThroughput = (template: StackTemplate): ConfiguredThroughput => {
  const sender = template.functions().find((fn) => fn.name === 'send-messages');
  if (!sender) throw new Error('the template has no send-messages function');
  const env = Object.fromEntries(
    Object.entries(sender.environment).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  return {
    recipientsPerSecond: integerEnv('TPS_QUOTA', 100, { min: 10, max: 100_000 }, env),
    eventsPerRecipient: booleanEnv('ACCEPTED_EVENTS', false, env) ? 2 : 1,
  };
};

/** `ok` when `applied` covers `needed`, else the quota to raise, to what, before which rate. */
const compare = (
  id: QuotaId,
  applied: AppliedQuota,
  needed: number,
  /** The recipients a second the applied value holds. */
  holds: number,
  throughput: ConfiguredThroughput,
  why: string,
): QuotaCheck => {
  const quota = DEFAULT_QUOTAS[id];
  const name = `${quota.name} quota`;
  const code = quota.quotaCode === undefined ? '' : ` (${quota.serviceCode} ${quota.quotaCode})`;
  const value = `${number(applied.value)} ${quota.unit}${applied.isDefault ? ' (the default)' : ''}`;
  const rate = `${number(throughput.recipientsPerSecond)} recipients a second`;
  if (applied.value >= needed)
    return {
      name,
      ok: true,
      detail: `${value}${code}; the configured ${rate} need ${number(needed)} (${why}); it holds up to ${number(holds)} recipients a second`,
    };
  return {
    name,
    ok: false,
    detail: `${value}${code} is below the ${number(needed)} the configured ${rate} need (${why}): it holds ${number(holds)} recipients a second`,
    fix:
      quota.quotaCode === undefined
        ? `ask AWS Support for ${number(needed)} before sending ${rate}`
        : `raise ${quota.name}${code} to at least ${number(needed)} before sending ${rate}: aws service-quotas request-service-quota-increase --service-code ${quota.serviceCode} --quota-code ${quota.quotaCode} --desired-value ${Math.ceil(needed)}`,
  };
};

const READ_FIX = `the credentials this command runs with need ${QUOTA_READ_ACTIONS.join(' and ')} (docs/operations.md, "msgbridge doctor")`;

/** The quota checks, in order: PutEvents, invocations, Lambda concurrency. */
export const quotaChecks = async (sources: QuotaSources): Promise<QuotaCheck[]> => {
  const throughput = configuredThroughput(sources.template);
  const events = throughput.recipientsPerSecond * throughput.eventsPerRecipient;
  const demand = eventBridgeDemand(events);
  const perRecipient = eventBridgeDemand(throughput.eventsPerRecipient);
  const eventsWhy = `${number(events)} events a second, ${throughput.eventsPerRecipient} a recipient`;
  const checks: QuotaCheck[] = [];
  const eventBridge: ReadonlyArray<[QuotaId, number, number, string]> = [
    [
      'putEvents',
      demand.putEventsRequestsPerSecond,
      perRecipient.putEventsRequestsPerSecond,
      `${eventsWhy}, 10 to a PutEvents request`,
    ],
    [
      'invocations',
      demand.invocationsPerSecond,
      perRecipient.invocationsPerSecond,
      `${eventsWhy}, one subscriber rule each`,
    ],
  ];
  for (const [id, needed, perOne, why] of eventBridge) {
    const quota = DEFAULT_QUOTAS[id];
    const name = `${quota.name} quota`;
    if (!sources.appliedQuota) {
      checks.push({ name, ok: null, detail: 'the local run has no account quotas' });
      continue;
    }
    let applied: AppliedQuota;
    try {
      applied = await sources.appliedQuota(quota.serviceCode ?? '', quota.quotaCode ?? '');
    } catch (error) {
      checks.push({
        name,
        ok: false,
        detail: `could not be read: ${error instanceof Error ? error.message : String(error)}`,
        fix: READ_FIX,
      });
      continue;
    }
    checks.push(compare(id, applied, needed, applied.value / perOne, throughput, why));
  }

  const concurrencyName = `${DEFAULT_QUOTAS.lambdaConcurrency.name} quota`;
  if (!sources.accountConcurrency) {
    checks.push({ name: concurrencyName, ok: null, detail: 'no account quota in the local run' });
    return checks;
  }
  const { limit } = await sources.accountConcurrency();
  const fixed = fixedConcurrency(sources.template);
  const receivers = Math.ceil(throughput.recipientsPerSecond / REQUESTS_PER_ENVIRONMENT);
  const needed = fixed.total + receivers;
  const why = `${fixed.total} fixed by the template (${fixed.parts.map((part) => `${part.functionName} ${part.executions}`).join(', ')}) and ${receivers} for the report webhooks at ${REQUESTS_PER_ENVIRONMENT} requests a second each`;
  // The recipients a second the limit holds: what is left after the fixed executions, for the receivers.
  const holds = Math.max(0, limit - fixed.total) * REQUESTS_PER_ENVIRONMENT;
  checks.push(
    compare(
      'lambdaConcurrency',
      { value: limit, isDefault: false },
      needed,
      holds,
      throughput,
      why,
    ),
  );
  return checks;
};
