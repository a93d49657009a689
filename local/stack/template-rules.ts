/**
 * Rules that span resources of a synthesized template, each taken from AWS's documentation of
 * what the deployed stack does, each a function of the template alone, so a test (and a planted
 * violation) can show it holds before anyone deploys:
 *
 * - **Queue visibility**: the visibility timeout of a queue an SQS event source reads is at least
 *   six times the function's timeout (Lambda developer guide, "Using Lambda with Amazon SQS").
 * - **Reserved concurrency**: what the functions reserve leaves Lambda's 100 unreserved
 *   executions of the account's quota; a quota not stated is a new account's, 10.
 * - **Egress ports**: every function in a VPC can reach the port of each gateway URL and content
 *   host it is given, through its security groups' egress rules, and, where its subnet's default
 *   route leads to a NAT instance, through that instance's security groups: in from the subnet's
 *   range, out to the internet (Amazon VPC user guide, "NAT instances", security group rules).
 * - **Function URL permissions**: each public function URL has both statements Lambda requires,
 *   `lambda:InvokeFunctionUrl` and `lambda:InvokeFunction` through the function URL.
 * - **Environment**: every variable a function's composition reads is set for that function.
 * - **Stream filters**: a filter on a DynamoDB stream compares attribute values as the stream
 *   delivers them, DynamoDB JSON whose numbers are strings (`{"N": "2"}`), so a `numeric` rule or
 *   a number literal under an attribute's type key can never match (Lambda developer guide,
 *   "Using event filtering with a DynamoDB event source").
 * - **Event bus DLQ**: an event bus encrypted with a customer managed key (`KmsKeyIdentifier`) has
 *   a dead-letter queue (`DeadLetterConfig`), a standard queue. EventBridge sends it the events it
 *   cannot encrypt or decrypt with the key; without one they are lost after `PutEvents` accepted
 *   them (EventBridge user guide, "Using dead-letter queues to capture encrypted event errors in
 *   EventBridge", https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-encryption-event-bus-dlq.html,
 *   and "Using dead-letter queues to process undelivered events in EventBridge", which supports
 *   standard queues only, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html,
 *   both read 2026-12-07).
 * - **Fixed concurrency**: the executions the template fixes (each queue consumer's maximum
 *   concurrency, each stream consumer's parallelization factor per shard, reservations;
 *   aws-semantics/fixed-concurrency.ts) fit the account's Lambda concurrency quota: the stated
 *   one, else the default an account has, 1,000 (Lambda developer guide, "Lambda quotas", read
 *   2026-12-07). Above it the consumers throttle one another and leave the webhook receivers none.
 * - **Key-policy principals**: no statement of a KMS key policy names an IAM principal that the
 *   same template creates. KMS refuses a policy naming a principal it cannot see yet
 *   (`MalformedPolicyDocumentException`, AWS KMS API reference, "CreateKey" and
 *   "PutKeyPolicy", read 2026-12-07), which is what a role created in the same deployment is, and
 *   a replaced role would leave the policy naming the old one; such a grant belongs in the role's
 *   own policy (the key policy's statement for the account lets IAM policies grant the key).
 * - **Environment size**: each function's environment variables fit Lambda's fixed quota of
 *   4 KB in aggregate (Lambda developer guide, "Lambda quotas", read 2026-12-07), measured as
 *   Lambda measures them (lib/lambda-environment.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  referencedId,
  resourcesOfType,
  type StackTemplate,
} from '../../aws-semantics/cloudformation-template.ts';
import { DEFAULT_QUOTAS } from '../../aws-semantics/default-quotas.ts';
import { fixedConcurrency } from '../../aws-semantics/fixed-concurrency.ts';
import {
  environmentBytes,
  GENERATED_NAME_SUFFIX_BYTES,
  LAMBDA_ENVIRONMENT_BYTES,
} from '../../lib/lambda-environment.ts';
import { LAMBDA_UNRESERVED_MINIMUM } from '../../lib/webhook-api.ts';
import { compositionOf, isDeployTimeFunction, recordingEnvironment } from './compositions.ts';
import type { DeploymentModel } from './deployment-model.ts';

/** The concurrency quota of a new account in some Regions: what a quota not stated is taken as. */
export const NEW_ACCOUNT_CONCURRENCY = 10;

export interface TemplateRuleOptions {
  /**
   * The account's Lambda concurrency quota, when the deployment states it. Not stated, the
   * reservation rule takes a new account's (10: a reservation it cannot give fails the deployment)
   * and the fixed-concurrency rule the default an account has (1,000).
   */
  readonly accountConcurrency?: number;
  /**
   * The event table's stream shards the stream consumers are counted on.
   * @default 4, a new on-demand table's
   */
  readonly streamShards?: number;
}

/** Every violation of the rules above, each naming the resources involved. */
export const templateRuleProblems = (
  model: DeploymentModel,
  options: TemplateRuleOptions = {},
): string[] => [
  ...queueVisibilityProblems(model.stack),
  ...reservedConcurrencyProblems(model.stack, options),
  ...fixedConcurrencyProblems(model.stack, options),
  ...egressPortProblems(model),
  ...functionUrlPermissionProblems(model.stack),
  ...environmentProblems(model),
  ...streamFilterProblems(model.stack),
  ...eventBusDeadLetterProblems(model.stack),
  ...keyPolicyPrincipalProblems(model.stack),
  ...environmentSizeProblems(model),
];

export const queueVisibilityProblems = (stack: StackTemplate): string[] => {
  const functions = new Map(stack.functions().map((fn) => [fn.logicalId, fn]));
  return stack
    .eventSourceMappings()
    .filter((mapping) => mapping.kind === 'sqs')
    .flatMap((mapping) => {
      const queue = stack.queue(mapping.sourceId);
      const fn = functions.get(mapping.functionId);
      if (!fn)
        return [`${mapping.logicalId}: its function ${mapping.functionId} is not in the template`];
      return queue.visibilityTimeoutSeconds >= 6 * fn.timeoutSeconds
        ? []
        : [
            `queue ${queue.logicalId}: visibility timeout ${queue.visibilityTimeoutSeconds} s is below 6 × the ${fn.timeoutSeconds} s timeout of ${fn.name}, which reads it (${6 * fn.timeoutSeconds} s at least)`,
          ];
    });
};

export const reservedConcurrencyProblems = (
  stack: StackTemplate,
  options: TemplateRuleOptions,
): string[] => {
  const reserving = stack.functions().filter((fn) => (fn.reservedConcurrency ?? 0) > 0);
  const reserved = reserving.reduce((sum, fn) => sum + (fn.reservedConcurrency ?? 0), 0);
  const quota = options.accountConcurrency ?? NEW_ACCOUNT_CONCURRENCY;
  if (reserved === 0 || quota - reserved >= LAMBDA_UNRESERVED_MINIMUM) return [];
  return [
    `the functions reserve ${reserved} executions (${reserving.map((fn) => `${fn.name} ${fn.reservedConcurrency}`).join(', ')}), but an account quota of ${quota}${options.accountConcurrency === undefined ? ' (a new account’s, no quota being stated)' : ''} leaves Lambda fewer than the ${LAMBDA_UNRESERVED_MINIMUM} unreserved executions it keeps: the deployment would fail`,
  ];
};

export const fixedConcurrencyProblems = (
  stack: StackTemplate,
  options: TemplateRuleOptions,
): string[] => {
  const fixed = fixedConcurrency(
    stack,
    options.streamShards === undefined ? {} : { streamShards: options.streamShards },
  );
  const stated = options.accountConcurrency !== undefined;
  const quota = options.accountConcurrency ?? DEFAULT_QUOTAS.lambdaConcurrency.otherRegions;
  if (fixed.total <= quota) return [];
  return [
    `the template fixes ${fixed.total} concurrent executions (${fixed.parts.map((part) => `${part.functionName} ${part.executions}: ${part.why}`).join('; ')}), above an account concurrency of ${quota}${stated ? '' : ' (the default an account has, no quota being stated)'}: the consumers would throttle one another and leave the webhook receivers none; raise the quota (Service Quotas, lambda ${DEFAULT_QUOTAS.lambdaConcurrency.quotaCode}) or lower the maximum concurrency`,
  ];
};

interface SecurityGroupRule {
  readonly IpProtocol?: string;
  readonly FromPort?: number;
  readonly ToPort?: number;
  readonly CidrIp?: string;
  readonly CidrIpv6?: string;
}

/** The TCP ports a function's environment says it calls: each gateway URL's and content host's. */
const calledPorts = (variables: Readonly<Record<string, string>>): Map<number, string> => {
  const ports = new Map<number, string>();
  for (const name of ['GATEWAY_API_URL', 'GATEWAY_SEND_URL', 'GATEWAY_MNT_URL']) {
    const value = variables[name];
    if (value === undefined || !URL.canParse(value)) continue;
    const url = new URL(value);
    ports.set(Number(url.port || (url.protocol === 'http:' ? 80 : 443)), `${name} ${value}`);
  }
  for (const host of (variables.ATTACHMENT_CONTENT_HOSTS ?? '').split(',')) {
    const trimmed = host.trim();
    if (trimmed === '' || !URL.canParse(`https://${trimmed}`)) continue;
    ports.set(Number(new URL(`https://${trimmed}`).port || 443), `content host ${trimmed}`);
  }
  return ports;
};

/** Whether a rule lets TCP `port` through (all protocols, or TCP over a range holding it). */
const opens = (rule: SecurityGroupRule, port: number): boolean =>
  rule.IpProtocol === '-1' ||
  (rule.IpProtocol === 'tcp' && (rule.FromPort ?? 0) <= port && port <= (rule.ToPort ?? 65_535));

/** An IPv4 CIDR block as its first address and prefix length; undefined when it is not one. */
const ipv4Block = (cidr: unknown): { first: number; bits: number } | undefined => {
  const match = typeof cidr === 'string' && /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!match) return undefined;
  const bits = Number(match[5]);
  const address = match.slice(1, 5).reduce((sum, octet) => sum * 256 + Number(octet), 0);
  const size = 2 ** (32 - bits);
  return { first: address - (address % size), bits };
};

/** Whether the IPv4 block `outer` holds every address of `inner`. */
const holds = (outer: unknown, inner: unknown): boolean => {
  const a = ipv4Block(outer);
  const b = ipv4Block(inner);
  if (!a || !b || a.bits > b.bits) return false;
  const size = 2 ** (32 - a.bits);
  return b.first - (b.first % size) === a.first;
};

/** The security groups' inline rules of one direction. */
const rulesOf = (
  stack: StackTemplate,
  groups: readonly string[],
  direction: 'SecurityGroupIngress' | 'SecurityGroupEgress',
): SecurityGroupRule[] =>
  groups.flatMap((id) => (stack.resource(id).Properties?.[direction] ?? []) as SecurityGroupRule[]);

const groupIds = (value: unknown): string[] =>
  ((value ?? []) as unknown[]).map(referencedId).filter((id): id is string => id !== undefined);

/**
 * The NAT instance a subnet of this template sends its internet traffic to: the instance its
 * route table's default route names; undefined for a NAT gateway, or a subnet not in the template.
 */
const natInstanceOfSubnet = (stack: StackTemplate, subnetId: string): string | undefined => {
  const tables = resourcesOfType(stack.template, 'AWS::EC2::SubnetRouteTableAssociation')
    .filter(([, association]) => referencedId(association.Properties?.SubnetId) === subnetId)
    .map(([, association]) => referencedId(association.Properties?.RouteTableId));
  const route = resourcesOfType(stack.template, 'AWS::EC2::Route').find(
    ([, each]) =>
      each.Properties?.DestinationCidrBlock === '0.0.0.0/0' &&
      tables.includes(referencedId(each.Properties?.RouteTableId)),
  );
  return referencedId(route?.[1].Properties?.InstanceId);
};

export const egressPortProblems = (model: DeploymentModel): string[] => {
  const { stack } = model;
  return stack.functions().flatMap((fn) => {
    if (!fn.inVpc) return [];
    const vpcConfig = stack.resource(fn.logicalId).Properties?.VpcConfig as {
      SecurityGroupIds?: unknown[];
      SubnetIds?: unknown[];
    };
    const groups = groupIds(vpcConfig.SecurityGroupIds);
    const rules = rulesOf(stack, groups, 'SecurityGroupEgress').filter(
      (rule) => rule.CidrIp === '0.0.0.0/0' || rule.CidrIpv6 === '::/0',
    );
    // Through a NAT instance, the packets pass its security groups too (a NAT gateway has none).
    const nats = groupIds(vpcConfig.SubnetIds).flatMap((subnetId) => {
      const instanceId = natInstanceOfSubnet(stack, subnetId);
      if (instanceId === undefined) return [];
      const natGroups = groupIds(stack.resource(instanceId).Properties?.SecurityGroupIds);
      return [
        {
          instanceId,
          natGroups,
          subnetCidr: stack.resource(subnetId).Properties?.CidrBlock,
          ingress: rulesOf(stack, natGroups, 'SecurityGroupIngress'),
          egress: rulesOf(stack, natGroups, 'SecurityGroupEgress').filter(
            (rule) => rule.CidrIp === '0.0.0.0/0',
          ),
        },
      ];
    });
    const variables = model.resolve(fn.environment) as Record<string, string>;
    return [...calledPorts(variables)].flatMap(([port, what]) => [
      ...(rules.some((rule) => opens(rule, port))
        ? []
        : [
            `${fn.name} calls ${what} on TCP ${port}, which no egress rule of its security groups (${groups.join(', ') || 'none'}) allows: calls would time out deployed`,
          ]),
      ...nats.flatMap((nat) =>
        nat.ingress.some((rule) => opens(rule, port) && holds(rule.CidrIp, nat.subnetCidr)) &&
        nat.egress.some((rule) => opens(rule, port))
          ? []
          : [
              `${fn.name} calls ${what} on TCP ${port} through NAT instance ${nat.instanceId}, whose security groups (${nat.natGroups.join(', ') || 'none'}) do not let it in from ${String(nat.subnetCidr)} and out to the internet on that port: calls would time out deployed`,
            ],
      ),
    ]);
  });
};

export const functionUrlPermissionProblems = (stack: StackTemplate): string[] => {
  const permissions = resourcesOfType(stack.template, 'AWS::Lambda::Permission').map(
    ([, resource]) => resource.Properties ?? {},
  );
  return resourcesOfType(stack.template, 'AWS::Lambda::Url').flatMap(([logicalId, resource]) => {
    const target = referencedId(resource.Properties?.TargetFunctionArn);
    if (resource.Properties?.AuthType !== 'NONE') return [];
    const ofTarget = permissions.filter(
      (permission) =>
        referencedId(permission.FunctionName) === target && permission.Principal === '*',
    );
    const hasUrlInvoke = ofTarget.some(
      (permission) =>
        permission.Action === 'lambda:InvokeFunctionUrl' &&
        permission.FunctionUrlAuthType === 'NONE',
    );
    const hasInvoke = ofTarget.some(
      (permission) =>
        permission.Action === 'lambda:InvokeFunction' && permission.InvokedViaFunctionUrl === true,
    );
    return [
      ...(hasUrlInvoke
        ? []
        : [
            `function URL ${logicalId}: no lambda:InvokeFunctionUrl permission for everyone on ${target}`,
          ]),
      ...(hasInvoke
        ? []
        : [
            `function URL ${logicalId}: no lambda:InvokeFunction permission (InvokedViaFunctionUrl) on ${target}: Lambda answers 403 to every request`,
          ]),
    ];
  });
};

const SILENT = new Logger({ logLevel: 'SILENT' });

/**
 * Composes each function on an environment that records what is read; a variable read and not set
 * is a problem (an optional one falls back to a default the deployment never chose).
 */
export const environmentProblems = (model: DeploymentModel): string[] =>
  model.stack.functions().flatMap((fn) => {
    const path = model.stack.resource(fn.logicalId).Metadata?.['aws:cdk:path'];
    if (isDeployTimeFunction(typeof path === 'string' ? path : undefined)) return [];
    const variables = model.resolve(fn.environment) as Record<string, string>;
    const { env, read } = recordingEnvironment(variables);
    compositionOf(fn.name)(env, {
      logger: SILENT,
      metrics: new Metrics({ namespace: 'msgbridge-rules', serviceName: fn.name }),
    } as never);
    return [...read]
      .filter((name) => !Object.hasOwn(variables, name))
      .map((name) => `${fn.name} reads ${name}, which the template does not set for it`);
  });

/** DynamoDB JSON's type keys, under which every value is a string (or a list or map of them). */
const TYPE_KEYS = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'BOOL', 'NULL', 'L', 'M']);

/** Where a pattern asks a stream's attribute value for a number it can never be. */
const numericRulesUnderTypeKeys = (pattern: unknown, path: readonly string[]): string[] => {
  if (Array.isArray(pattern)) {
    const typeKey = path.at(-1);
    // BOOL and NULL values are JSON booleans: only a number is never one of them.
    if (typeKey === undefined || !TYPE_KEYS.has(typeKey)) return [];
    return pattern.some(
      (rule) =>
        typeof rule === 'number' ||
        (typeof rule === 'object' && rule !== null && 'numeric' in rule) ||
        (typeof rule === 'object' &&
          rule !== null &&
          'anything-but' in rule &&
          [(rule as Record<string, unknown>)['anything-but']]
            .flat()
            .some((v) => typeof v === 'number')),
    )
      ? [path.join('.')]
      : [];
  }
  if (typeof pattern !== 'object' || pattern === null) return [];
  return Object.entries(pattern).flatMap(([key, value]) =>
    key === '$or' && Array.isArray(value)
      ? value.flatMap((alternative) => numericRulesUnderTypeKeys(alternative, path))
      : numericRulesUnderTypeKeys(value, [...path, key]),
  );
};

export const streamFilterProblems = (stack: StackTemplate): string[] =>
  stack
    .eventSourceMappings()
    .filter((mapping) => mapping.kind === 'dynamodb')
    .flatMap((mapping) =>
      (mapping.filterCriteria.Filters ?? []).flatMap((filter) =>
        numericRulesUnderTypeKeys(JSON.parse(filter.Pattern ?? '{}'), []).map(
          (where) =>
            `${mapping.logicalId}: the filter compares ${where} with a number, but a DynamoDB stream delivers attribute values as strings ({"N": "2"}): no record ever matches`,
        ),
      ),
    );

/** The logical ids of this template's resources that `value` refers to, at any depth. */
const referencedResources = (
  value: unknown,
  resources: Readonly<Record<string, unknown>>,
): string[] => {
  if (Array.isArray(value)) return value.flatMap((each) => referencedResources(each, resources));
  if (typeof value !== 'object' || value === null) return [];
  const id = referencedId(value);
  if (id !== undefined) return Object.hasOwn(resources, id) ? [id] : [];
  return Object.values(value).flatMap((each) => referencedResources(each, resources));
};

export const keyPolicyPrincipalProblems = (stack: StackTemplate): string[] =>
  resourcesOfType(stack.template, 'AWS::KMS::Key').flatMap(([keyId, key]) => {
    const statements = (key.Properties?.KeyPolicy as { Statement?: unknown[] } | undefined)
      ?.Statement;
    return (statements ?? []).flatMap((statement, index) => {
      const principal = (statement as { Principal?: { AWS?: unknown } }).Principal;
      const named = [...new Set(referencedResources(principal?.AWS, stack.template.Resources))];
      if (named.length === 0) return [];
      const sid = (statement as { Sid?: unknown }).Sid;
      return [
        `key ${keyId}: statement ${typeof sid === 'string' ? sid : `#${index + 1}`} of its key policy names ${named.join(', ')}, created in the same template: KMS refuses a principal it cannot see yet (MalformedPolicyDocumentException) when the stack is created or the role replaced; grant the key in the role's own policy instead`,
      ];
    });
  });

/**
 * Each function's environment as it deploys: the template's values resolved against the model,
 * with CloudFormation's suffix on every generated name it refers to.
 */
export const environmentSizeProblems = (model: DeploymentModel): string[] =>
  model.stack.functions().flatMap((fn) => {
    const variables = model.resolve(fn.environment) as Record<string, string>;
    const generated = referencedResources(fn.environment, model.stack.template.Resources).length;
    const bytes = environmentBytes(variables) + generated * GENERATED_NAME_SUFFIX_BYTES;
    if (bytes <= LAMBDA_ENVIRONMENT_BYTES) return [];
    const largest = Object.entries(variables)
      .map(([name, value]) => [name, environmentBytes({ [name]: value }) - 2] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, size]) => `${name} ${size.toLocaleString('en-US')} B`);
    return [
      `${fn.name}: its environment variables take ${bytes.toLocaleString('en-US')} bytes as Lambda measures them, above its fixed quota of ${LAMBDA_ENVIRONMENT_BYTES.toLocaleString('en-US')} (4 KB in aggregate): the deployment would fail (largest: ${largest.join(', ')})`,
    ];
  });

export const eventBusDeadLetterProblems = (stack: StackTemplate): string[] =>
  resourcesOfType(stack.template, 'AWS::Events::EventBus').flatMap(([busId, bus]) => {
    const properties = bus.Properties ?? {};
    // Without a key of the customer's, EventBridge encrypts with a key of its own and no event
    // fails for a key.
    if (properties.KmsKeyIdentifier === undefined) return [];
    const target = (properties.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn;
    if (target === undefined)
      return [
        `event bus ${busId} is encrypted with a customer managed key (KmsKeyIdentifier) but has no DeadLetterConfig: an event EventBridge cannot encrypt or decrypt with the key is lost after PutEvents accepted it`,
      ];
    const queueId = referencedId(target);
    if (queueId === undefined || stack.template.Resources[queueId]?.Type !== 'AWS::SQS::Queue')
      return [];
    return stack.queue(queueId).fifo
      ? [
          `event bus ${busId}: its dead-letter queue ${queueId} is a FIFO queue, which EventBridge cannot use as a DLQ (standard queues only)`,
        ]
      : [];
  });
