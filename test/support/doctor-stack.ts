/**
 * The deployed stack `msgbridge doctor --stack NAME` reads in the infrastructure tests: the
 * stack's real template (synthesized once, as deployed: GetTemplate answers it,
 * ListStackResources answers each resource's physical id as CloudFormation names it), the AWS
 * clients mocked around it, and a function URL on a local port. `useDoctorStack()` makes each test
 * of a file start from a healthy stack, which the test then breaks where it means to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  ListStackResourcesCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  GetAWSDefaultServiceQuotaCommand,
  GetServiceQuotaCommand,
  NoSuchResourceException,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  type CfnTemplate,
  referencedId,
  StackTemplate,
} from '../../aws-semantics/cloudformation-template.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { synthesizeStack } from '../../local/stack/synthesize.ts';
import { OPTIONAL_OUTPUTS, REQUIRED_OUTPUTS } from '../../ops/target.ts';
import { runCli } from './cli-gateway.ts';

export const REGION = 'ap-northeast-2';
export const NOW = new Date('2026-11-28T06:00:00Z');
const WEBHOOK_SECRET = 'doctor-secret-0123456789';

/** What a failed check shows: `ok: false` and `expected` (its detail, its fix). */
export const failed = (expected: Record<string, unknown>) => ({ ok: false, ...expected });

export const cloudFormation = mockClient(CloudFormationClient);
export const documents = mockClient(DynamoDBDocumentClient);
export const sqs = mockClient(SQSClient);
export const secrets = mockClient(SecretsManagerClient);
export const lambda = mockClient(LambdaClient);
export const cloudWatch = mockClient(CloudWatchClient);
export const scheduler = mockClient(SchedulerClient);
export const serviceQuotas = mockClient(ServiceQuotasClient);
export const ec2 = mockClient(EC2Client);

/** How CloudFormation names the resources of `template` once deployed as `msgbridge`. */
export const deploymentOf = (template: CfnTemplate): DeploymentModel =>
  new DeploymentModel(new StackTemplate(template), {
    region: REGION,
    account: '123456789012',
    partition: 'aws',
    stackName: 'msgbridge',
  });

/** The stack with the default settings, as deployed. */
export const synthesized = synthesizeStack({ stackName: 'msgbridge' });
export const stack = new StackTemplate(synthesized.template);
const model = deploymentOf(synthesized.template);
export const physical = (logicalId: string) => model.physical(logicalId).ref;
export const functionId = (name: string) => stack.functionNamed(name).logicalId;
/** The dead-letter queue of send-messages' queue. */
export const sendDlqUrl = () => {
  const sendQueue = stack
    .queues()
    .find(
      (queue) =>
        stack.eventSourceMappings().find((mapping) => mapping.sourceId === queue.logicalId)
          ?.functionId === functionId('send-messages'),
    );
  return physical(sendQueue?.redrive?.deadLetterQueueId ?? '');
};

/** The queue the template names as the event bus's DeadLetterConfig. */
export const busDlqUrl = () => {
  const bus = stack.resource(stack.eventBusIds()[0] ?? '');
  const target = (bus.Properties?.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn;
  return physical(referencedId(target) ?? '');
};

/** CloudFormation answers with `template` and the physical ids of its resources in `deployment`. */
export const deployedAs = (template: CfnTemplate, deployment: DeploymentModel): void => {
  cloudFormation
    .on(GetTemplateCommand)
    .resolves({ TemplateBody: JSON.stringify(template) })
    .on(ListStackResourcesCommand)
    .resolves({
      StackResourceSummaries: Object.entries(template.Resources).map(
        ([LogicalResourceId, resource]) => ({
          LogicalResourceId,
          PhysicalResourceId: deployment.physical(LogicalResourceId).ref,
          ResourceType: resource.Type,
          LastUpdatedTimestamp: NOW,
          ResourceStatus: 'UPDATE_COMPLETE',
        }),
      ),
    });
};

let server: Server;
let base: string;

/** A function URL's answers: 404 to any secret but the one, then the receivers' contract. */
const startFunctionUrl = async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const [, , secret, kind] = (request.url ?? '').split('/');
      if (secret !== WEBHOOK_SECRET) {
        response.writeHead(404).end('{"message":"Not Found"}');
        return;
      }
      if (kind === 'report' && body === '{"rptLst":[]}') response.writeHead(204).end();
      else if (kind === 'mo' && body === '{"moLst":[]}')
        response.writeHead(200).end('{"code":"10000","message":"success"}');
      else response.writeHead(400).end('{"code":"21000"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** Every client answers as a healthy stack's would. */
const healthy = () => {
  for (const mock of [
    cloudFormation,
    documents,
    sqs,
    secrets,
    lambda,
    cloudWatch,
    scheduler,
    serviceQuotas,
    ec2,
  ])
    mock.reset();
  const outputs: Record<string, string> = Object.fromEntries(
    [...REQUIRED_OUTPUTS, ...OPTIONAL_OUTPUTS].map((name) => [name, `value-of-${name}`]),
  );
  Object.assign(outputs, {
    GatewayHosts: JSON.stringify({
      api: 'https://a.example',
      send: 'https://s.example',
      mnt: 'https://m.example',
    }),
    StateTableName: 'msgbridge-state',
    GatewayCredentialsArn: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:creds',
    WebhookSecretArn: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook',
    ReportWebhookUrl: `${base}/webhooks/<secret>/report`,
    InboundWebhookUrl: `${base}/webhooks/<secret>/mo`,
    GatewayEgressIps: '203.0.113.10,203.0.113.11',
  });
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'msgbridge',
        CreationTime: NOW,
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
          OutputKey,
          OutputValue,
        })),
      },
    ],
  });
  deployedAs(synthesized.template, model);
  secrets
    .on(GetSecretValueCommand, { SecretId: outputs.GatewayCredentialsArn })
    .resolves({ SecretString: JSON.stringify({ apiKey: 'k', apiPassword: 'p' }) })
    .on(GetSecretValueCommand, { SecretId: outputs.WebhookSecretArn })
    .resolves({ SecretString: JSON.stringify({ current: WEBHOOK_SECRET }) });
  documents.on(GetCommand).resolves({
    Item: {
      pk: 'TOKEN#gateway',
      token: 't',
      refreshToken: 'r',
      accessExpiresAt: NOW.getTime() + 40 * 60_000,
      refreshExpiresAt: NOW.getTime() + 20 * 3_600_000,
      version: 3,
      updatedAt: NOW.getTime() - 4 * 60_000,
    },
  });
  sqs.on(GetQueueAttributesCommand).resolves({
    Attributes: {
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    },
  });
  lambda
    .on(GetEventSourceMappingCommand)
    .resolves({ State: 'Enabled', LastProcessingResult: 'OK' })
    .on(GetAccountSettingsCommand)
    .resolves({
      AccountLimit: { ConcurrentExecutions: 1_000, UnreservedConcurrentExecutions: 1_000 },
    });
  cloudWatch.on(DescribeAlarmsCommand).callsFake((input: { AlarmNames?: string[] }) => ({
    MetricAlarms: (input.AlarmNames ?? []).map((AlarmName) => ({ AlarmName, StateValue: 'OK' })),
  }));
  scheduler.on(GetScheduleCommand).resolves({ State: 'ENABLED' });
  // A default account in Seoul: no applied value, AWS's defaults (EventBridge quotas page).
  serviceQuotas
    .on(GetServiceQuotaCommand)
    .rejects(new NoSuchResourceException({ message: 'no applied quota', $metadata: {} }))
    .on(GetAWSDefaultServiceQuotaCommand, { ServiceCode: 'events', QuotaCode: 'L-9B653E91' })
    .resolves({ Quota: { Value: 600 } })
    .on(GetAWSDefaultServiceQuotaCommand, { ServiceCode: 'events', QuotaCode: 'L-5540C5E3' })
    .resolves({ Quota: { Value: 1_100 } });
};

/**
 * For a whole test file: the function URL started in `beforeAll` and closed in `afterAll`, and
 * every client answering as a healthy stack's in `beforeEach`.
 */
export const useDoctorStack = (): void => {
  beforeAll(startFunctionUrl);
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => healthy());
};

/** Runs `msgbridge doctor --stack msgbridge` with `extra` arguments on the mocked clients. */
export const runDoctorCommand = (...extra: string[]) =>
  runCli(['doctor', '--stack', 'msgbridge', '--region', REGION, ...extra], {
    now: () => NOW,
    aws: {
      cloudFormation: new CloudFormationClient({ region: REGION }),
      sqs: new SQSClient({ region: REGION }),
      secretsManager: new SecretsManagerClient({ region: REGION }),
      lambda: new LambdaClient({ region: REGION }),
      cloudWatch: new CloudWatchClient({ region: REGION }),
      scheduler: new SchedulerClient({ region: REGION }),
      serviceQuotas: new ServiceQuotasClient({ region: REGION }),
      ec2: new EC2Client({ region: REGION }),
    },
  });

/** `msgbridge doctor --json` on the mocked clients: its exit code, its checks, a check by name. */
export const doctor = async (...extra: string[]) => {
  const { code, stdout, stderr } = await runDoctorCommand('--json', ...extra);
  expect(stderr).toBe('');
  const { checks } = JSON.parse(stdout) as {
    checks: Array<{ name: string; ok: boolean | null; detail: string; fix?: string }>;
  };
  const named = (name: string) => {
    const found = checks.find((check) => check.name === name);
    if (!found) throw new Error(`no check ${name}: ${stdout}`);
    return found;
  };
  return { code, checks, named };
};
