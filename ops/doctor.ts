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
 */
import { randomBytes } from 'node:crypto';
import {
  referencedId,
  resourcesOfType,
  type StackTemplate,
} from '../aws-semantics/cloudformation-template.ts';
import { GatewayCredentialsSchema } from '../functions/gateway-access/gateway-credentials.ts';
import { StoredTokenSchema } from '../functions/gateway-access/token-state.ts';
import { type AppliedQuota, quotaChecks } from './doctor-quotas.ts';

export interface DoctorCheck {
  /** What is checked: `gateway credentials`. */
  readonly name: string;
  /** `true` fine, `false` wrong, `null` not checked here (and why, in `detail`). */
  readonly ok: boolean | null;
  readonly detail: string;
  /** What to do about it, when something is wrong. */
  readonly fix?: string;
}

/** How an answer to a probe looked. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** Where the checks read the deployment; see ops/doctor-sources.ts. */
export interface DoctorSources {
  readonly mode: 'stack' | 'local';
  /** The deployed template (a stack's own, or the one the local run deployed). */
  readonly template: StackTemplate;
  /** A resource's physical id by its logical id (ListStackResources, or the local run's). */
  readonly physicalId: (logicalId: string) => string | undefined;
  readonly secrets: { readonly gatewayCredentials: string; readonly webhook: string };
  /** The webhook URLs with `<secret>` in place of the secret. */
  readonly webhookUrlTemplates: { readonly report: string; readonly mo: string };
  /** The fixed source addresses of gateway calls; undefined when there are none. */
  readonly egressAddresses: readonly string[] | undefined;
  /** Says where the gateway calls come from when there are no fixed addresses. */
  readonly egressNote: string;
  /**
   * The route table of each of `subnetIds` and the VPC's DynamoDB and S3 gateway endpoints (EC2
   * DescribeRouteTables and DescribeVpcEndpoints); absent locally.
   */
  gatewayEndpoints?(vpcId: string, subnetIds: readonly string[]): Promise<GatewayEndpoints>;
  /** A secret's string value; undefined when it has none. */
  secretText(secretId: string): Promise<string | undefined>;
  /** The gateway token item of the state table; undefined when there is none. */
  tokenItem(): Promise<Record<string, unknown> | undefined>;
  post(url: string, body: string): Promise<HttpAnswer>;
  /** An event source mapping's `State` and `LastProcessingResult`. */
  mapping(
    logicalId: string,
  ): Promise<{ readonly state: string; readonly lastProcessingResult: string | undefined }>;
  /** Messages in a queue: visible, in flight and delayed. */
  queueDepth(queueUrl: string): Promise<number>;
  /** A schedule's `State`. */
  schedule(logicalId: string): Promise<string>;
  /** The alarms' states by name; absent where there are no alarms (the local run). */
  alarms?(names: readonly string[]): Promise<ReadonlyArray<{ name: string; state: string }>>;
  /** The account's concurrency quota and what is left unreserved; absent locally. */
  accountConcurrency?(): Promise<{ readonly limit: number; readonly unreserved: number }>;
  /** A quota's applied value from Service Quotas (its default when none is applied); absent locally. */
  appliedQuota?(serviceCode: string, quotaCode: string): Promise<AppliedQuota>;
  /** Runs refresh-token once and returns its error message, if any (`--invoke`). */
  invokeRefreshToken?(): Promise<{ readonly error: string | undefined }>;
}

/** The services whose gateway endpoints keep the callers' calls off the NAT. */
export const GATEWAY_ENDPOINT_SERVICES = ['dynamodb', 's3'] as const;
export type GatewayEndpointService = (typeof GATEWAY_ENDPOINT_SERVICES)[number];

/** What the doctor reads of a VPC it did not create (`existing-vpc` mode). */
export interface GatewayEndpoints {
  /** The Region of the service names, `com.amazonaws.<region>.dynamodb`. */
  readonly region: string;
  /** Each subnet's route table: its own association, else the VPC's main table. */
  readonly routeTables: Readonly<Record<string, string>>;
  /** The VPC's available gateway endpoints of each service, with the route tables they are on. */
  readonly endpoints: Readonly<
    Record<GatewayEndpointService, ReadonlyArray<{ id: string; routeTableIds: readonly string[] }>>
  >;
}

export interface DoctorOptions {
  readonly now: Date;
  /** Run refresh-token once, from the egress addresses, to see what the gateway answers. */
  readonly invoke?: boolean;
}

/** Lambda keeps this much of an account's concurrency unreserved. */
const LAMBDA_UNRESERVED_MINIMUM = 100;
/** A token renewed within this long shows the gateway accepted a call from the egress addresses. */
const RECENT_TOKEN_MS = 60 * 60_000;
/** The gateway's codes for a source address it does not accept (field notes). */
const ADDRESS_REFUSED = /\b(20001|29025)\b/;

const minutes = (ms: number) => Math.round(ms / 60_000);

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

const putSecretFix = (sources: DoctorSources) =>
  sources.mode === 'stack'
    ? `aws secretsmanager put-secret-value --secret-id ${sources.secrets.gatewayCredentials} --secret-string '{"apiKey":"…","apiPassword":"…"}'`
    : 'restart npm start: the local run writes the simulator credentials (SIMULATOR_API_KEY, SIMULATOR_API_PASSWORD) into the secret';

const credentialsCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'gateway credentials';
  let text: string | undefined;
  try {
    text = await sources.secretText(sources.secrets.gatewayCredentials);
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `the secret ${sources.secrets.gatewayCredentials} could not be read: ${(error as Error).message}`,
      fix: 'the credentials this command runs with need secretsmanager:GetSecretValue on it (and kms:Decrypt on its key)',
    };
  }
  if (text === undefined)
    return { name, ok: false, detail: 'the secret has no value', fix: putSecretFix(sources) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // Never the value: only whether it has the shape refresh-token reads.
  const parsed = GatewayCredentialsSchema.safeParse(json);
  if (!parsed.success)
    return {
      name,
      ok: false,
      detail:
        json === undefined
          ? 'the secret is not JSON (a generated random string until someone fills it in)'
          : `the secret is JSON but not {"apiKey", "apiPassword"} (${parsed.error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ')})`,
      fix: putSecretFix(sources),
    };
  return { name, ok: true, detail: 'filled in, {"apiKey", "apiPassword"}' };
};

const readToken = async (sources: DoctorSources) => {
  const item = await sources.tokenItem();
  if (item === undefined) return undefined;
  const parsed = StoredTokenSchema.safeParse(item);
  return parsed.success ? parsed.data : ('unreadable' as const);
};

const tokenCheck = (
  token: Awaited<ReturnType<typeof readToken>>,
  now: Date,
  credentialsOk: boolean,
): DoctorCheck => {
  const name = 'gateway token';
  const why = credentialsOk
    ? 'refresh-token runs every 5 minutes: if none comes, the gateway refuses its calls (see the egress check) or its logs say why'
    : 'fill in the gateway credentials first; refresh-token obtains a token within 5 minutes';
  if (token === undefined)
    return { name, ok: false, detail: 'no token in the state table', fix: why };
  if (token === 'unreadable')
    return {
      name,
      ok: false,
      detail: 'the token item in the state table is unreadable',
      fix: `${why}; it replaces an unreadable item`,
    };
  const left = token.accessExpiresAt - now.getTime();
  const renewed = new Date(token.updatedAt).toISOString();
  if (left <= 0)
    return {
      name,
      ok: false,
      detail: `expired ${minutes(-left)} min ago (last renewed ${renewed})`,
      fix: why,
    };
  return {
    name,
    ok: true,
    detail: `valid for ${minutes(left)} more min, renewed ${renewed}`,
  };
};

const egressCheck = async (
  sources: DoctorSources,
  token: Awaited<ReturnType<typeof readToken>>,
  options: DoctorOptions,
): Promise<DoctorCheck> => {
  const name = 'egress addresses';
  const addresses = sources.egressAddresses;
  const listed = addresses === undefined ? sources.egressNote : addresses.join(', ');
  const register =
    addresses === undefined
      ? 'give the stack fixed egress (gateway.egress: "nat" or an existing VPC) and register its addresses'
      : `register ${addresses.join(', ')} in the gateway console`;
  if (options.invoke && sources.invokeRefreshToken) {
    const { error } = await sources.invokeRefreshToken();
    if (error === undefined)
      return {
        name,
        ok: true,
        detail: `${listed}: refresh-token ran now and the gateway accepted its calls`,
      };
    const refused = ADDRESS_REFUSED.exec(error);
    return refused
      ? {
          name,
          ok: false,
          detail: `${listed}: the gateway refuses calls from them (${refused[1]})`,
          fix: register,
        }
      : { name, ok: false, detail: `${listed}: refresh-token failed: ${error}`, fix: register };
  }
  const recent =
    typeof token === 'object' && options.now.getTime() - token.updatedAt <= RECENT_TOKEN_MS;
  if (recent)
    return {
      name,
      ok: true,
      detail: `${listed}: the gateway accepted refresh-token's call from them at ${new Date(token.updatedAt).toISOString()}`,
    };
  return {
    name,
    ok: false,
    detail: `${listed}: no token renewed within the last hour, so nothing shows the gateway accepts them`,
    fix: `${register}; then \`msgbridge doctor --invoke\` runs refresh-token once and shows the gateway's answer (20001 or 29025: an address it does not accept)`,
  };
};

/** The gateway callers' subnets and VPC, as the template gives them to the functions. */
const callerNetwork = (template: StackTemplate) => {
  const configs = template
    .functions()
    .filter((fn) => fn.inVpc)
    .map(
      (fn) =>
        template.resource(fn.logicalId).Properties?.VpcConfig as {
          SubnetIds?: unknown[];
          SecurityGroupIds?: unknown[];
        },
    );
  const subnetIds = [...new Set(configs.flatMap((config) => config.SubnetIds ?? []))];
  const groupId = referencedId(configs[0]?.SecurityGroupIds?.[0]);
  const vpcId = groupId && template.resource(groupId).Properties?.VpcId;
  return { inVpc: configs.length > 0, subnetIds, vpcId };
};

/** The stack's own gateway endpoints of each service (`nat` and `nat-instance` modes). */
const templateEndpoints = (template: StackTemplate): GatewayEndpointService[] =>
  GATEWAY_ENDPOINT_SERVICES.filter((service) =>
    resourcesOfType(template.template, 'AWS::EC2::VPCEndpoint').some(
      ([, endpoint]) =>
        (endpoint.Properties?.VpcEndpointType ?? 'Gateway') === 'Gateway' &&
        JSON.stringify(endpoint.Properties?.ServiceName).includes(`.${service}"`),
    ),
  );

/**
 * Whether the gateway callers' DynamoDB and S3 calls stay off the NAT: in a VPC the stack created,
 * its template says so; in an existing VPC, the VPC's endpoints must be on the route table of
 * every subnet the callers run in. Without them the calls still work, through the NAT and at its
 * per-GB charge (a NAT instance's bandwidth too).
 */
const gatewayEndpointCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'gateway endpoints';
  if (sources.mode === 'local')
    return {
      name,
      ok: null,
      detail: 'the local run has no VPC: its functions call the local endpoints',
    };
  const { inVpc, subnetIds, vpcId } = callerNetwork(sources.template);
  if (!inVpc)
    return { name, ok: null, detail: 'the gateway callers run outside a VPC (egress.mode "none")' };
  const own = templateEndpoints(sources.template);
  if (own.length === GATEWAY_ENDPOINT_SERVICES.length)
    return {
      name,
      ok: true,
      detail:
        'DynamoDB and S3 gateway endpoints on the private subnets’ route tables, created by the stack',
    };
  const literal = (value: unknown): value is string => typeof value === 'string';
  if (!literal(vpcId) || !subnetIds.every(literal))
    return {
      name,
      ok: false,
      detail: `the stack created its VPC without a ${GATEWAY_ENDPOINT_SERVICES.filter((service) => !own.includes(service)).join(' or ')} gateway endpoint`,
      fix: 'deploy this msgbridge version, which adds both',
    };
  if (!sources.gatewayEndpoints)
    return { name, ok: null, detail: `${vpcId} is not read from here` };
  const found = await sources.gatewayEndpoints(vpcId, subnetIds);
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const service of GATEWAY_ENDPOINT_SERVICES) {
    const endpoints = found.endpoints[service];
    const serviceName = `com.amazonaws.${found.region}.${service}`;
    const missing = [
      ...new Set(
        subnetIds
          .map((subnet) => found.routeTables[subnet])
          .filter(
            (table): table is string =>
              table !== undefined &&
              !endpoints.some((endpoint) => endpoint.routeTableIds.includes(table)),
          ),
      ),
    ];
    const unrouted = subnetIds.filter((subnet) => found.routeTables[subnet] === undefined);
    if (unrouted.length > 0)
      problems.push(`${service}: no route table found for ${unrouted.join(', ')}`);
    if (missing.length === 0) continue;
    problems.push(
      endpoints.length === 0
        ? `no ${serviceName} gateway endpoint in ${vpcId}`
        : `${serviceName} gateway endpoint ${endpoints.map((endpoint) => endpoint.id).join(', ')} is not on ${missing.join(', ')}`,
    );
    const [first] = endpoints;
    fixes.push(
      first === undefined
        ? `aws ec2 create-vpc-endpoint --vpc-id ${vpcId} --vpc-endpoint-type Gateway --service-name ${serviceName} --route-table-ids ${missing.join(' ')}`
        : `aws ec2 modify-vpc-endpoint --vpc-endpoint-id ${first.id} --add-route-table-ids ${missing.join(' ')}`,
    );
  }
  const tables = [...new Set(Object.values(found.routeTables))].join(', ');
  return problems.length === 0
    ? {
        name,
        ok: true,
        detail: `${vpcId}: DynamoDB and S3 gateway endpoints on the route table${tables.includes(',') ? 's' : ''} of every caller subnet (${tables})`,
      }
    : {
        name,
        ok: false,
        detail: `${vpcId}: ${problems.join('; ')}: the functions' DynamoDB and S3 calls cross the NAT, at its per-GB charge`,
        fix: `${fixes.join('; ') || 'check the subnets in egress.privateSubnetIds'} (gateway endpoints cost nothing; docs/operations.md, "Fixed egress")`,
      };
};

const webhookCheck = async (
  sources: DoctorSources,
  kind: 'report' | 'mo',
): Promise<DoctorCheck> => {
  const name = `${kind === 'report' ? 'report' : 'inbound'} webhook`;
  const template = sources.webhookUrlTemplates[kind];
  const text = await sources.secretText(sources.secrets.webhook);
  const current = text === undefined ? undefined : secretOf(text);
  if (current === undefined)
    return {
      name,
      ok: false,
      detail: 'the webhook secret holds no {"current": "…"}',
      fix: 'see "Rotating the webhook secret" in docs/operations.md',
    };
  const wrong = await sources.post(
    template.replace('<secret>', `doctor-${randomBytes(12).toString('hex')}`),
    '{}',
  );
  // An empty list: the contract's answer, and nothing stored.
  const url = template.replace('<secret>', encodeURIComponent(current));
  const right = await sources.post(
    url,
    JSON.stringify(kind === 'report' ? { rptLst: [] } : { moLst: [] }),
  );
  const shown = template;
  if (wrong.status === 403 || right.status === 403)
    return {
      name,
      ok: null,
      detail: `${shown} answers 403 to this machine: the source allowlist admits the gateway's addresses only`,
    };
  const problems: string[] = [];
  if (wrong.status !== 404) problems.push(`a wrong secret got ${wrong.status}, not 404`);
  const expected =
    kind === 'report'
      ? right.status === 204
      : right.status === 200 && /"code"\s*:\s*"10000"/.test(right.body);
  if (!expected)
    problems.push(
      `an empty list got ${right.status} ${right.body.slice(0, 120)}, not ${kind === 'report' ? '204' : '200 with code 10000'}`,
    );
  return problems.length === 0
    ? {
        name,
        ok: true,
        detail: `${shown}: 404 to a wrong secret, ${kind === 'report' ? '204' : '200 code 10000'} to an empty list`,
      }
    : {
        name,
        ok: false,
        detail: `${shown}: ${problems.join('; ')}`,
        fix: 'the URL registered in the gateway console must be this one with the secret\'s "current" value; see docs/deploy.md, "Deploy"',
      };
};

const secretOf = (text: string): string | undefined => {
  try {
    const value = (JSON.parse(text) as { current?: unknown }).current;
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
};

const mappingChecks = async (sources: DoctorSources): Promise<DoctorCheck[]> => {
  const names = new Map(sources.template.functions().map((fn) => [fn.logicalId, fn.name]));
  const checks: DoctorCheck[] = [];
  for (const mapping of sources.template.eventSourceMappings()) {
    const fn = names.get(mapping.functionId) ?? mapping.functionId;
    const name = `${fn} event source`;
    const { state, lastProcessingResult } = await sources.mapping(mapping.logicalId);
    const failing = lastProcessingResult?.startsWith('PROBLEM') === true;
    checks.push(
      state === 'Enabled' && !failing
        ? { name, ok: true, detail: `${state}, last result ${lastProcessingResult ?? 'none yet'}` }
        : {
            name,
            ok: false,
            detail: `${state}, last result ${lastProcessingResult ?? 'none'}`,
            fix:
              state === 'Enabled'
                ? `read ${fn}'s log group for the failing invocations (docs/operations.md, "Alarms")`
                : `enable it: aws lambda update-event-source-mapping --uuid ${sources.physicalId(mapping.logicalId) ?? mapping.logicalId} --enabled`,
          },
    );
  }
  return checks;
};

/** What to do about messages left in a queue, by the queue's role. */
const queueFix = (fn: string | undefined, role: 'dead-letter' | 'on-failure'): string => {
  if (role === 'on-failure' && fn === 'publish-events')
    return 'msgbridge events republish (docs/operations.md)';
  if (role === 'dead-letter' && fn === 'send-messages')
    return 'fix the cause, then msgbridge dlq redrive (docs/operations.md, "Redriving the DLQ")';
  return 'see docs/operations.md for this queue';
};

/**
 * What to do about events in an event bus's dead-letter queue: EventBridge put them there because
 * it could not encrypt or decrypt them with the bus's customer managed key (EventBridge user guide,
 * "Using dead-letter queues to capture encrypted event errors in EventBridge",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-encryption-event-bus-dlq.html, read
 * 2026-12-07). The publisher counted them published, so `msgbridge events republish` never sees
 * them.
 */
const BUS_DLQ_FIX =
  'each message is an event EventBridge could not encrypt or decrypt with the data key, which subscribers never got (its ERROR_CODE and ERROR_MESSAGE attributes say why): usually the key is disabled, pending deletion, or its policy no longer lets events.amazonaws.com use it. Fix the key, then put the events on the bus again and delete the messages (docs/operations.md, "The event bus DLQ"); msgbridge events republish does not read this queue';

/** The logical id of the dead-letter queue of each event bus of the template that has one. */
const busDeadLetterQueues = (template: StackTemplate): string[] =>
  resourcesOfType(template.template, 'AWS::Events::EventBus').flatMap(([, bus]) => {
    const queueId = referencedId(
      (bus.Properties?.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn,
    );
    return queueId === undefined ? [] : [queueId];
  });

const queueChecks = async (sources: DoctorSources): Promise<DoctorCheck[]> => {
  const { template } = sources;
  const names = new Map(template.functions().map((fn) => [fn.logicalId, fn.name]));
  const consumerOf = (queueId: string) =>
    names.get(
      template.eventSourceMappings().find((mapping) => mapping.sourceId === queueId)?.functionId ??
        '',
    );
  const watched: Array<{ id: string; label: string; fix: string }> = [];
  for (const queue of template.queues())
    if (queue.redrive) {
      const fn = consumerOf(queue.logicalId);
      watched.push({
        id: queue.redrive.deadLetterQueueId,
        label: `dead-letter queue of ${fn ?? template.constructPath(queue.logicalId)}`,
        fix: queueFix(fn, 'dead-letter'),
      });
    }
  for (const mapping of template.eventSourceMappings())
    if (mapping.onFailureQueueId !== undefined) {
      const fn = names.get(mapping.functionId);
      watched.push({
        id: mapping.onFailureQueueId,
        label: `on-failure queue of ${fn ?? mapping.functionId}`,
        fix: queueFix(fn, 'on-failure'),
      });
    }
  for (const queueId of busDeadLetterQueues(template))
    watched.push({ id: queueId, label: 'dead-letter queue of the event bus', fix: BUS_DLQ_FIX });
  const checks: DoctorCheck[] = [];
  for (const { id, label, fix } of watched) {
    const url = sources.physicalId(id);
    if (url === undefined) {
      checks.push({ name: label, ok: false, detail: `${id} is not deployed`, fix: 'deploy again' });
      continue;
    }
    const depth = await sources.queueDepth(url);
    checks.push(
      depth === 0
        ? { name: label, ok: true, detail: 'empty' }
        : { name: label, ok: false, detail: `${depth} message(s) waiting`, fix },
    );
  }
  return checks;
};

const alarmCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'alarms';
  const ids = Object.entries(sources.template.template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
    .map(([id]) => id);
  if (!sources.alarms) return { name, ok: null, detail: 'the local run has no alarms' };
  const alarmNames = ids
    .map((id) => sources.physicalId(id))
    .filter((each): each is string => each !== undefined);
  const states = await sources.alarms(alarmNames);
  const firing = states.filter((alarm) => alarm.state === 'ALARM');
  return firing.length === 0
    ? { name, ok: true, detail: `none of ${states.length} in ALARM` }
    : {
        name,
        ok: false,
        detail: `in ALARM: ${firing.map((alarm) => alarm.name).join(', ')}`,
        fix: 'each alarm says what it watches and what to do: docs/operations.md, "Alarms"',
      };
};

const scheduleCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'schedules';
  const names = new Map(sources.template.functions().map((fn) => [fn.logicalId, fn.name]));
  const off: string[] = [];
  const schedules = sources.template.schedules();
  for (const schedule of schedules)
    if ((await sources.schedule(schedule.logicalId)) !== 'ENABLED')
      off.push(names.get(schedule.functionId) ?? schedule.logicalId);
  return off.length === 0
    ? {
        name,
        ok: true,
        detail: `all ${schedules.length} enabled (${schedules.map((s) => names.get(s.functionId)).join(', ')})`,
      }
    : {
        name,
        ok: false,
        detail: `disabled: ${off.join(', ')}`,
        fix: 'enable them again (aws scheduler update-schedule … --state ENABLED) or deploy again',
      };
};

const concurrencyCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'account concurrency';
  if (!sources.accountConcurrency)
    return { name, ok: null, detail: 'no account quota in the local run' };
  const { limit, unreserved } = await sources.accountConcurrency();
  return unreserved >= LAMBDA_UNRESERVED_MINIMUM
    ? { name, ok: true, detail: `quota ${limit}, ${unreserved} unreserved` }
    : {
        name,
        ok: false,
        detail: `quota ${limit}, only ${unreserved} unreserved (Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM})`,
        fix: 'ask for a higher concurrency quota (Service Quotas, Lambda, "Concurrent executions"), or reserve less',
      };
};

/** The checks as lines: ✔ or ✗ (– when not checked here), and each fix under its check. */
export const formatChecks = (checks: readonly DoctorCheck[]): string[] =>
  checks.flatMap((check) => [
    `${check.ok === true ? '✔' : check.ok === false ? '✗' : '–'} ${check.name}: ${check.detail}`,
    ...(check.ok === false && check.fix ? [`    fix: ${check.fix}`] : []),
  ]);
