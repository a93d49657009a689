/**
 * Where `msgbridge doctor` reads a deployment (see ops/doctor.ts). On a stack: CloudFormation
 * (outputs, resources, the deployed template), Secrets Manager, the state table, SQS, Lambda's
 * event source mappings and account settings, CloudWatch alarms, EventBridge Scheduler, Service
 * Quotas, and EC2's route tables and VPC endpoints of an existing VPC. In the
 * local run: the same SDK calls on its local endpoints, the template it deployed and its resources
 * from `bridge.json`, and the state of its mappings and schedules from its loopback-only
 * `GET /_bridge/status`.
 */
import { readFile } from 'node:fs/promises';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import type { EC2Client } from '@aws-sdk/client-ec2';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  InvokeCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  GetAWSDefaultServiceQuotaCommand,
  GetServiceQuotaCommand,
  NoSuchResourceException,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type CfnTemplate, StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import { TOKEN_STATE_KEY } from '../functions/gateway-access/token-state.ts';
import * as z from '../gateway/schemas/zod.ts';
import {
  type DoctorSources,
  GATEWAY_ENDPOINT_SERVICES,
  type GatewayEndpointService,
  type GatewayEndpoints,
  type HttpAnswer,
} from './doctor-ports.ts';
import { OperationError } from './errors.ts';
import type { AwsClients, Target } from './target.ts';

/** A POST with a body, answered within 10 s; the answer's status and the start of its body. */
const post = async (url: string, body: string): Promise<HttpAnswer> => {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: answer.status, body: (await answer.text()).slice(0, 2_000) };
};

const secretText = async (client: SecretsManagerClient, secretId: string) => {
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return answer.SecretString;
  } catch (error) {
    // A secret created without a value has no current version.
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
};

const queueDepth = async (sqs: SQSClient, queueUrl: string): Promise<number> => {
  const answer = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(answer.Attributes ?? {}).reduce((sum, value) => sum + Number(value), 0);
};

const tokenItem = async (target: Target) => {
  const answer = await target.documents.send(
    new GetCommand({
      TableName: target.tables.state,
      Key: { pk: TOKEN_STATE_KEY },
      ConsistentRead: true,
    }),
  );
  return answer.Item;
};

/**
 * A quota's applied value; Service Quotas answers NoSuchResourceException for a quota the account
 * never had changed ("If the applied quota value is not available for a quota, the quota is not
 * retrieved", GetServiceQuota), and then the default is what applies.
 */
const appliedQuota = async (
  client: ServiceQuotasClient,
  serviceCode: string,
  quotaCode: string,
) => {
  const input = { ServiceCode: serviceCode, QuotaCode: quotaCode };
  try {
    const answer = await client.send(new GetServiceQuotaCommand(input));
    const value = answer.Quota?.Value;
    if (value !== undefined) return { value, isDefault: false };
  } catch (error) {
    if (!(error instanceof NoSuchResourceException)) throw error;
  }
  const answer = await client.send(new GetAWSDefaultServiceQuotaCommand(input));
  const value = answer.Quota?.Value;
  if (value === undefined)
    throw new Error(`Service Quotas has no value for ${serviceCode} ${quotaCode}`);
  return { value, isDefault: true };
};

/**
 * The route table of each subnet and the VPC's available DynamoDB and S3 gateway endpoints. A
 * subnet without a route table association of its own uses the VPC's main route table.
 */
const gatewayEndpoints = async (
  ec2: EC2Client,
  vpcId: string,
  subnetIds: readonly string[],
): Promise<GatewayEndpoints> => {
  const { paginateDescribeRouteTables, paginateDescribeVpcEndpoints } = await import(
    '@aws-sdk/client-ec2'
  );
  const region = await ec2.config.region();
  const byVpc = { Name: 'vpc-id', Values: [vpcId] };
  const routeTables: Record<string, string> = {};
  let main: string | undefined;
  for await (const page of paginateDescribeRouteTables({ client: ec2 }, { Filters: [byVpc] }))
    for (const table of page.RouteTables ?? [])
      for (const association of table.Associations ?? []) {
        if (table.RouteTableId === undefined) continue;
        if (association.Main) main = table.RouteTableId;
        if (association.SubnetId !== undefined)
          routeTables[association.SubnetId] = table.RouteTableId;
      }
  for (const subnet of subnetIds) if (!routeTables[subnet] && main) routeTables[subnet] = main;
  const endpoints: Record<
    GatewayEndpointService,
    Array<{ id: string; routeTableIds: string[] }>
  > = { dynamodb: [], s3: [] };
  const serviceNames = GATEWAY_ENDPOINT_SERVICES.map(
    (service) => `com.amazonaws.${region}.${service}`,
  );
  for await (const page of paginateDescribeVpcEndpoints(
    { client: ec2 },
    { Filters: [byVpc, { Name: 'service-name', Values: serviceNames }] },
  ))
    for (const endpoint of page.VpcEndpoints ?? []) {
      const service = GATEWAY_ENDPOINT_SERVICES.find((each) =>
        endpoint.ServiceName?.endsWith(`.${each}`),
      );
      // Interface endpoints of S3 take no route table: only gateway ones keep traffic off the NAT.
      // The SDK's enums spell the type and state capitalised, the service's answers in lower case.
      if (
        service === undefined ||
        endpoint.VpcEndpointId === undefined ||
        endpoint.VpcEndpointType?.toLowerCase() !== 'gateway' ||
        endpoint.State?.toLowerCase() !== 'available'
      )
        continue;
      endpoints[service].push({
        id: endpoint.VpcEndpointId,
        routeTableIds: endpoint.RouteTableIds ?? [],
      });
    }
  return { region, routeTables, endpoints };
};

/** What `GET /_bridge/status` answers (`DeploymentStatus` of local/deployment.ts). */
const StatusSchema = z.object({
  mappings: z.array(
    z.object({ logicalId: z.string(), state: z.string(), lastProcessingResult: z.string() }),
  ),
  schedules: z.array(z.object({ logicalId: z.string(), state: z.string() })),
});

/** The doctor's sources for the local run `target` describes. */
export const localDoctorSources = async (target: Target): Promise<DoctorSources> => {
  const origin = target.origin;
  if (origin?.kind !== 'local') throw new Error('not a local run');
  const { bridge } = origin;
  const template = new StackTemplate(
    JSON.parse(await readFile(bridge.template, 'utf8')) as CfnTemplate,
  );
  const aws = { region: bridge.region, credentials: bridge.credentials };
  const secrets = new SecretsManagerClient({ ...aws, endpoint: bridge.services });
  let status: z.infer<typeof StatusSchema> | undefined;
  const readStatus = async () => {
    if (status) return status;
    const answer = await fetch(`${bridge.webhooks}/_bridge/status`, {
      headers: { authorization: `Bearer ${bridge.controlToken}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) throw new Error(`GET /_bridge/status answered ${answer.status}`);
    status = StatusSchema.parse(await answer.json());
    return status;
  };
  return {
    mode: 'local',
    template,
    physicalId: (logicalId) => bridge.resources[logicalId],
    secrets: bridge.secrets,
    webhookUrlTemplates: bridge.webhookUrlTemplates,
    egressAddresses: undefined,
    egressNote: 'the local run calls the simulator from 127.0.0.1',
    secretText: (id) => secretText(secrets, id),
    tokenItem: () => tokenItem(target),
    post,
    mapping: async (logicalId) => {
      const found = (await readStatus()).mappings.find((each) => each.logicalId === logicalId);
      if (!found) throw new Error(`the local run has no event source mapping ${logicalId}`);
      return found;
    },
    queueDepth: (url) => queueDepth(target.sqs, url),
    schedule: async (logicalId) => {
      const found = (await readStatus()).schedules.find((each) => each.logicalId === logicalId);
      if (!found) throw new Error(`the local run has no schedule ${logicalId}`);
      return found.state;
    },
  };
};

/** The doctor's sources for the deployed stack `target` names. */
export const stackDoctorSources = async (
  target: Target,
  clients: AwsClients = {},
): Promise<DoctorSources> => {
  const origin = target.origin;
  if (origin?.kind !== 'stack') throw new Error('not a stack');
  const config = origin.region === undefined ? {} : { region: origin.region };
  const cloudFormation = clients.cloudFormation ?? new CloudFormationClient(config);
  const secrets = clients.secretsManager ?? new SecretsManagerClient(config);
  const lambda = clients.lambda ?? new LambdaClient(config);
  const cloudWatch = clients.cloudWatch ?? new CloudWatchClient(config);
  const scheduler = clients.scheduler ?? new SchedulerClient(config);
  const serviceQuotas = clients.serviceQuotas ?? new ServiceQuotasClient(config);
  // Loaded for an existing VPC only: the EC2 client is about a megabyte of the command's bundle,
  // which no other command should parse.
  const ec2 = async () =>
    clients.ec2 ?? new (await import('@aws-sdk/client-ec2')).EC2Client(config);

  const described = await cloudFormation.send(
    new DescribeStacksCommand({ StackName: origin.name }),
  );
  const outputs = new Map(
    (described.Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]),
  );
  const output = (key: string): string => {
    const value = outputs.get(key);
    if (value === undefined)
      throw new OperationError(
        `stack ${origin.name} has no output ${key}; deploy this msgbridge version`,
      );
    return value;
  };
  const body = (
    await cloudFormation.send(
      new GetTemplateCommand({ StackName: origin.name, TemplateStage: 'Processed' }),
    )
  ).TemplateBody;
  let template: StackTemplate;
  try {
    template = new StackTemplate(JSON.parse(body ?? '') as CfnTemplate);
  } catch {
    throw new OperationError(
      `stack ${origin.name}: its template is not the JSON cdk deploy writes`,
    );
  }
  const physical = new Map<string, string>();
  for await (const page of paginateListStackResources(
    { client: cloudFormation },
    { StackName: origin.name },
  ))
    for (const resource of page.StackResourceSummaries ?? [])
      if (resource.LogicalResourceId && resource.PhysicalResourceId)
        physical.set(resource.LogicalResourceId, resource.PhysicalResourceId);
  const physicalId = (logicalId: string) => physical.get(logicalId);
  const egress = outputs.get('GatewayEgressIps');
  const refreshToken = template.functions().find((fn) => fn.name === 'refresh-token');

  return {
    mode: 'stack',
    template,
    physicalId,
    secrets: {
      gatewayCredentials: output('GatewayCredentialsArn'),
      webhook: output('WebhookSecretArn'),
    },
    webhookUrlTemplates: { report: output('ReportWebhookUrl'), mo: output('InboundWebhookUrl') },
    egressAddresses: egress === undefined ? undefined : egress.split(',').filter(Boolean),
    egressNote:
      'no fixed addresses: the functions run outside a VPC, from addresses of AWS that change',
    secretText: (id) => secretText(secrets, id),
    tokenItem: () => tokenItem(target),
    post,
    mapping: async (logicalId) => {
      const uuid = physicalId(logicalId);
      if (uuid === undefined) throw new Error(`${logicalId} is not deployed`);
      const answer = await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }));
      return {
        state: answer.State ?? 'unknown',
        lastProcessingResult: answer.LastProcessingResult,
      };
    },
    queueDepth: (url) => queueDepth(target.sqs, url),
    schedule: async (logicalId) => {
      const name = physicalId(logicalId);
      if (name === undefined) throw new Error(`${logicalId} is not deployed`);
      const group = template.resource(logicalId).Properties?.GroupName;
      const answer = await scheduler.send(
        new GetScheduleCommand({
          Name: name,
          ...(typeof group === 'string' ? { GroupName: group } : {}),
        }),
      );
      return answer.State ?? 'unknown';
    },
    alarms: async (names) => {
      const states: Array<{ name: string; state: string }> = [];
      for (let start = 0; start < names.length; start += 100) {
        const answer = await cloudWatch.send(
          new DescribeAlarmsCommand({ AlarmNames: names.slice(start, start + 100) }),
        );
        for (const alarm of answer.MetricAlarms ?? [])
          states.push({ name: alarm.AlarmName ?? '', state: alarm.StateValue ?? 'unknown' });
        for (const alarm of answer.CompositeAlarms ?? [])
          states.push({ name: alarm.AlarmName ?? '', state: alarm.StateValue ?? 'unknown' });
      }
      return states;
    },
    accountConcurrency: async () => {
      const answer = await lambda.send(new GetAccountSettingsCommand({}));
      return {
        limit: answer.AccountLimit?.ConcurrentExecutions ?? 0,
        unreserved: answer.AccountLimit?.UnreservedConcurrentExecutions ?? 0,
      };
    },
    appliedQuota: (serviceCode, quotaCode) => appliedQuota(serviceQuotas, serviceCode, quotaCode),
    gatewayEndpoints: async (vpcId, subnetIds) => gatewayEndpoints(await ec2(), vpcId, subnetIds),
    invokeRefreshToken: async () => {
      const name = refreshToken ? physicalId(refreshToken.logicalId) : undefined;
      if (name === undefined) throw new Error('the stack has no refresh-token function');
      const answer = await lambda.send(
        new InvokeCommand({ FunctionName: name, Payload: new TextEncoder().encode('{}') }),
      );
      const payload = answer.Payload ? new TextDecoder().decode(answer.Payload) : '';
      if (answer.FunctionError) {
        let message = payload;
        try {
          message = String((JSON.parse(payload) as { errorMessage?: unknown }).errorMessage);
        } catch {
          // The payload as it came.
        }
        return { error: message };
      }
      // A run that found the credentials not set answers normally, and says so.
      return payload.includes('credentials-not-set')
        ? { error: 'the gateway credentials are not set' }
        : { error: undefined };
    },
  };
};
