/**
 * `msgbridge doctor --stack NAME` on a deployed stack whose AWS clients are mocked around the
 * stack's real template (synthesized once, as deployed: GetTemplate answers it, ListStackResources
 * answers each resource's physical id as CloudFormation names it). Each check reads what it
 * should: a healthy stack passes; a new account's concurrency, a failing mapping, a disabled
 * schedule, an alarm in ALARM, a message in the send DLQ or in the event bus's DLQ and the
 * gateway's 20001 to refresh-token each fail with the fix; in an existing VPC (a second
 * template), a route table of the callers' subnets without the DynamoDB or S3 gateway endpoint
 * fails with the command that adds it.
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
import {
  DescribeRouteTablesCommand,
  DescribeVpcEndpointsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  GetAccountSettingsCommand,
  GetEventSourceMappingCommand,
  InvokeCommand,
  type InvokeCommandOutput,
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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CfnTemplate,
  referencedId,
  StackTemplate,
} from '../../aws-semantics/cloudformation-template.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { synthesizeStack } from '../../local/stack/synthesize.ts';
import { OPTIONAL_OUTPUTS, REQUIRED_OUTPUTS } from '../../ops/target.ts';
import { runCli } from '../support/cli-gateway.ts';

const REGION = 'ap-northeast-2';
const NOW = new Date('2026-11-28T06:00:00Z');
const WEBHOOK_SECRET = 'doctor-secret-0123456789';

/** What a failed check shows: `ok: false` and `expected` (its detail, its fix). */
const failed = (expected: Record<string, unknown>) => ({ ok: false, ...expected });

const cloudFormation = mockClient(CloudFormationClient);
const documents = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const secrets = mockClient(SecretsManagerClient);
const lambda = mockClient(LambdaClient);
const cloudWatch = mockClient(CloudWatchClient);
const scheduler = mockClient(SchedulerClient);
const serviceQuotas = mockClient(ServiceQuotasClient);
const ec2 = mockClient(EC2Client);

const synthesized = synthesizeStack({ stackName: 'msgbridge' });
const stack = new StackTemplate(synthesized.template);
const model = new DeploymentModel(stack, {
  region: REGION,
  account: '123456789012',
  partition: 'aws',
  stackName: 'msgbridge',
});
const physical = (logicalId: string) => model.physical(logicalId).ref;
const functionId = (name: string) => stack.functionNamed(name).logicalId;
const sendDlqUrl = () => {
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
const busDlqUrl = () => {
  const bus = stack.resource(stack.eventBusIds()[0] ?? '');
  const target = (bus.Properties?.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn;
  return physical(referencedId(target) ?? '');
};

/** A function URL's answers: 404 to any secret but the one, then the receivers' contract. */
let server: Server;
let base: string;
beforeAll(async () => {
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
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

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
  cloudFormation
    .on(GetTemplateCommand)
    .resolves({ TemplateBody: JSON.stringify(synthesized.template) });
  cloudFormation.on(ListStackResourcesCommand).resolves({
    StackResourceSummaries: Object.entries(synthesized.template.Resources).map(
      ([LogicalResourceId, resource]) => ({
        LogicalResourceId,
        PhysicalResourceId: physical(LogicalResourceId),
        ResourceType: resource.Type,
        LastUpdatedTimestamp: NOW,
        ResourceStatus: 'UPDATE_COMPLETE',
      }),
    ),
  });
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

/** The deployed template with send-messages configured for `tpsQuota` recipients a second. */
const deployedWithQuota = (tpsQuota: number) => {
  const template = structuredClone(synthesized.template) as CfnTemplate;
  const sender = template.Resources[functionId('send-messages')]?.Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
  sender.Environment.Variables.TPS_QUOTA = String(tpsQuota);
  cloudFormation.on(GetTemplateCommand).resolves({ TemplateBody: JSON.stringify(template) });
};

const doctor = async (...extra: string[]) => {
  const { code, stdout, stderr } = await runCli(
    ['doctor', '--stack', 'msgbridge', '--region', REGION, '--json', ...extra],
    {
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
    },
  );
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

beforeEach(() => healthy());

describe('msgbridge doctor --stack', () => {
  it('passes every check of a healthy stack, reading each resource the template declares', async () => {
    const { code, checks, named } = await doctor();

    expect(checks.filter((check) => check.ok !== true)).toEqual([]);
    expect(code).toBe(0);
    expect(named('egress addresses').detail).toContain('203.0.113.10, 203.0.113.11');
    expect(named('report webhook').detail).toContain('404 to a wrong secret, 204');
    expect(named('dead-letter queue of the event bus')).toMatchObject({
      ok: true,
      detail: 'empty',
    });
    expect(
      sqs.commandCalls(GetQueueAttributesCommand).map((call) => call.args[0].input.QueueUrl),
    ).toContain(busDlqUrl());
    // Every mapping, alarm and schedule of the template was asked for by its physical id.
    expect(
      lambda
        .commandCalls(GetEventSourceMappingCommand)
        .map((call) => call.args[0].input.UUID)
        .sort(),
    ).toEqual(
      stack
        .eventSourceMappings()
        .map((mapping) => physical(mapping.logicalId))
        .sort(),
    );
    const alarms = Object.entries(synthesized.template.Resources).filter(
      ([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm',
    );
    expect(named('alarms').detail).toBe(`none of ${alarms.length} in ALARM`);
    expect(scheduler.commandCalls(GetScheduleCommand)).toHaveLength(stack.schedules().length);
    // Nothing but reads: no Invoke without --invoke.
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    // The stack's own VPC: its template shows the endpoints, and EC2 is not asked.
    expect(named('gateway endpoints')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('created by the stack'),
    });
    expect(ec2.calls()).toHaveLength(0);
  });

  it('fails each broken part with its fix', async () => {
    const publisherMapping = stack
      .eventSourceMappings()
      .find((mapping) => mapping.functionId === functionId('publish-events'));
    lambda
      .on(GetEventSourceMappingCommand, { UUID: physical(publisherMapping?.logicalId ?? '') })
      .resolves({ State: 'Enabled', LastProcessingResult: 'PROBLEM: Function call failed' })
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const firstSchedule = stack.schedules()[0];
    scheduler
      .on(GetScheduleCommand, { Name: physical(firstSchedule?.logicalId ?? '') })
      .resolves({ State: 'DISABLED' });
    cloudWatch.on(DescribeAlarmsCommand).callsFake((input: { AlarmNames?: string[] }) => ({
      MetricAlarms: (input.AlarmNames ?? []).map((AlarmName, index) => ({
        AlarmName,
        StateValue: index === 0 ? 'ALARM' : 'OK',
      })),
    }));
    sqs
      .on(GetQueueAttributesCommand, { QueueUrl: sendDlqUrl() })
      .resolves({ Attributes: { ApproximateNumberOfMessages: '3' } })
      .on(GetQueueAttributesCommand, { QueueUrl: busDlqUrl() })
      .resolves({ Attributes: { ApproximateNumberOfMessages: '2' } });

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('publish-events event source')).toMatchObject(
      failed({ detail: 'Enabled, last result PROBLEM: Function call failed' }),
    );
    expect(named('account concurrency')).toMatchObject(
      failed({ detail: 'quota 10, only 10 unreserved (Lambda keeps 100)' }),
    );
    expect(named('schedules')).toMatchObject(failed({ fix: expect.stringContaining('ENABLED') }));
    expect(named('alarms')).toMatchObject(failed({ detail: expect.stringMatching(/^in ALARM: /) }));
    expect(named('dead-letter queue of send-messages')).toMatchObject(
      failed({
        detail: '3 message(s) waiting',
        fix: expect.stringContaining('msgbridge dlq redrive'),
      }),
    );
    // Events the bus could not encrypt or decrypt: a key problem, which republish cannot see.
    expect(named('dead-letter queue of the event bus')).toMatchObject(
      failed({
        detail: '2 message(s) waiting',
        fix: expect.stringMatching(
          /could not encrypt or decrypt with the data key.*events\.amazonaws\.com.*"The event bus DLQ"\); msgbridge events republish does not read this queue$/,
        ),
      }),
    );
  });

  it('with --invoke, runs refresh-token and reads the gateway’s 20001 as "register these addresses"', async () => {
    documents.on(GetCommand).resolves({});
    lambda.on(InvokeCommand).resolves({
      FunctionError: 'Unhandled',
      // The SDK wraps the bytes in a blob adapter; the doctor reads them as bytes.
      Payload: new TextEncoder().encode(
        JSON.stringify({
          errorType: 'GatewayAuthError',
          errorMessage:
            'POST /auth/v1/token: 20001 IP not allowed: register this egress address in the gateway console',
        }),
      ) as InvokeCommandOutput['Payload'],
    });

    const { code, named } = await doctor('--invoke');

    expect(code).toBe(1);
    expect(named('gateway token')).toMatchObject(failed({ detail: 'no token in the state table' }));
    expect(named('egress addresses')).toMatchObject(
      failed({
        detail: '203.0.113.10, 203.0.113.11: the gateway refuses calls from them (20001)',
        fix: 'register 203.0.113.10, 203.0.113.11 in the gateway console',
      }),
    );
    expect(lambda.commandCalls(InvokeCommand)[0]?.args[0].input.FunctionName).toBe(
      physical(functionId('refresh-token')),
    );
  });

  it('finds the credentials secret still holding its generated string', async () => {
    secrets
      .on(GetSecretValueCommand, {
        SecretId: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:creds',
      })
      .resolves({ SecretString: 'Zq8-generated-0p' });

    const { named } = await doctor();

    expect(named('gateway credentials')).toMatchObject(
      failed({
        fix: 'aws secretsmanager put-secret-value --secret-id arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:creds --secret-string \'{"apiKey":"…","apiPassword":"…"}\'',
      }),
    );
    expect(JSON.stringify(named('gateway credentials'))).not.toContain('Zq8-generated-0p');
  });
  it('reads the EventBridge quotas from Service Quotas, and finds a default account’s enough for the configured rate', async () => {
    const { named } = await doctor();

    const tps = Number(stack.functionNamed('send-messages').environment.TPS_QUOTA ?? Number.NaN);
    expect(named('PutEvents throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^600 requests\/s \(the default\) \(events L-9B653E91\)/),
    });
    expect(named('Invocations throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`the configured ${tps} recipients a second need ${tps}`),
    });
    expect(named('Concurrent executions quota').ok).toBe(true);
    // The applied value first; the default only where none is applied.
    expect(
      serviceQuotas.commandCalls(GetServiceQuotaCommand).map((call) => call.args[0].input),
    ).toEqual([
      { ServiceCode: 'events', QuotaCode: 'L-9B653E91' },
      { ServiceCode: 'events', QuotaCode: 'L-5540C5E3' },
    ]);
  });

  it('names the quota to raise, its code, the value to ask for and the throughput, when one is short', async () => {
    deployedWithQuota(5_000);

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('Invocations throttle limit in transactions per second quota')).toEqual(
      failed({
        name: 'Invocations throttle limit in transactions per second quota',
        detail:
          '1,100 invocations/s (the default) (events L-5540C5E3) is below the 5,000 the configured 5,000 recipients a second need (5,000 events a second, 1 a recipient, one subscriber rule each): it holds 1,100 recipients a second',
        fix: 'raise Invocations throttle limit in transactions per second (events L-5540C5E3) to at least 5,000 before sending 5,000 recipients a second: aws service-quotas request-service-quota-increase --service-code events --quota-code L-5540C5E3 --desired-value 5000',
      }),
    );
    // 5,000 events are 500 full PutEvents requests: the default 600 holds them.
    expect(named('PutEvents throttle limit in transactions per second quota').ok).toBe(true);
  });

  it('takes a raised quota as the account has it', async () => {
    deployedWithQuota(5_000);
    serviceQuotas
      .on(GetServiceQuotaCommand, { ServiceCode: 'events', QuotaCode: 'L-5540C5E3' })
      .resolves({ Quota: { Value: 6_000 } });

    const { named } = await doctor();

    expect(named('Invocations throttle limit in transactions per second quota')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^6,000 invocations\/s \(events L-5540C5E3\);/),
    });
  });

  it('fails a concurrency quota below what the template fixes and the webhooks need', async () => {
    lambda
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 50, UnreservedConcurrentExecutions: 50 } });

    const { named } = await doctor();

    expect(named('Concurrent executions quota')).toMatchObject(
      failed({
        detail: expect.stringMatching(/^50 executions \(lambda L-B99A9384\) is below the \d+/),
        fix: expect.stringContaining('--service-code lambda --quota-code L-B99A9384'),
      }),
    );
  });

  it('says which permission it lacks when Service Quotas refuses the read', async () => {
    serviceQuotas
      .on(GetServiceQuotaCommand)
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));

    const { named } = await doctor();

    expect(named('PutEvents throttle limit in transactions per second quota')).toMatchObject(
      failed({ fix: expect.stringContaining('servicequotas:GetServiceQuota') }),
    );
  });
});

describe('msgbridge doctor --stack, in an existing VPC', () => {
  const VPC = 'vpc-0123456789abcdef0';
  const SUBNETS = ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'];
  const existing = synthesizeStack({
    stackName: 'msgbridge',
    settings: {
      egress: {
        mode: 'existing-vpc',
        vpcId: VPC,
        privateSubnetIds: SUBNETS,
        availabilityZones: ['ap-northeast-2a', 'ap-northeast-2c'],
        egressIps: ['203.0.113.10', '203.0.113.11'],
      },
    },
  });
  const existingModel = new DeploymentModel(new StackTemplate(existing.template), {
    region: REGION,
    account: '123456789012',
    partition: 'aws',
    stackName: 'msgbridge',
  });

  /** The existing-VPC template as deployed, its subnets in two route tables of their own. */
  const deployedInExistingVpc = () => {
    cloudFormation
      .on(GetTemplateCommand)
      .resolves({ TemplateBody: JSON.stringify(existing.template) })
      .on(ListStackResourcesCommand)
      .resolves({
        StackResourceSummaries: Object.entries(existing.template.Resources).map(
          ([LogicalResourceId, resource]) => ({
            LogicalResourceId,
            PhysicalResourceId: existingModel.physical(LogicalResourceId).ref,
            ResourceType: resource.Type,
            LastUpdatedTimestamp: NOW,
            ResourceStatus: 'UPDATE_COMPLETE',
          }),
        ),
      });
    ec2.on(DescribeRouteTablesCommand).resolves({
      RouteTables: [
        { RouteTableId: 'rtb-main', Associations: [{ Main: true }] },
        { RouteTableId: 'rtb-a', Associations: [{ SubnetId: SUBNETS[0] }] },
        { RouteTableId: 'rtb-b', Associations: [{ SubnetId: SUBNETS[1] }] },
      ],
    });
  };
  const gatewayEndpoint = (id: string, service: string, tables: string[]) => ({
    VpcEndpointId: id,
    VpcEndpointType: 'Gateway' as const,
    ServiceName: `com.amazonaws.${REGION}.${service}`,
    State: 'Available' as const,
    RouteTableIds: tables,
  });

  it('finds the DynamoDB and S3 gateway endpoints on the route table of every caller subnet', async () => {
    deployedInExistingVpc();
    ec2.on(DescribeVpcEndpointsCommand).resolves({
      VpcEndpoints: [
        gatewayEndpoint('vpce-dynamodb', 'dynamodb', ['rtb-a', 'rtb-b']),
        gatewayEndpoint('vpce-s3', 's3', ['rtb-a', 'rtb-b', 'rtb-public']),
      ],
    });

    const { named } = await doctor();

    expect(named('gateway endpoints')).toEqual({
      name: 'gateway endpoints',
      ok: true,
      detail: `${VPC}: DynamoDB and S3 gateway endpoints on the route tables of every caller subnet (rtb-a, rtb-b)`,
    });
    expect(ec2.commandCalls(DescribeVpcEndpointsCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'vpc-id', Values: [VPC] },
      {
        Name: 'service-name',
        Values: [`com.amazonaws.${REGION}.dynamodb`, `com.amazonaws.${REGION}.s3`],
      },
    ]);
    expect(ec2.commandCalls(DescribeRouteTablesCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'vpc-id', Values: [VPC] },
    ]);
  });

  it('names each route table without an endpoint and the command that adds it', async () => {
    deployedInExistingVpc();
    // The second subnet has no table of its own: it uses the VPC's main one.
    ec2.on(DescribeRouteTablesCommand).resolves({
      RouteTables: [
        { RouteTableId: 'rtb-main', Associations: [{ Main: true }] },
        { RouteTableId: 'rtb-a', Associations: [{ SubnetId: SUBNETS[0] }] },
      ],
    });
    ec2.on(DescribeVpcEndpointsCommand).resolves({
      VpcEndpoints: [
        gatewayEndpoint('vpce-dynamodb', 'dynamodb', ['rtb-a']),
        // An interface endpoint of S3 takes no route: it keeps nothing off the NAT.
        { ...gatewayEndpoint('vpce-s3-interface', 's3', []), VpcEndpointType: 'Interface' },
      ],
    });

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('gateway endpoints')).toEqual({
      name: 'gateway endpoints',
      ok: false,
      detail: `${VPC}: com.amazonaws.${REGION}.dynamodb gateway endpoint vpce-dynamodb is not on rtb-main; no com.amazonaws.${REGION}.s3 gateway endpoint in ${VPC}: the functions' DynamoDB and S3 calls cross the NAT, at its per-GB charge`,
      fix: `aws ec2 modify-vpc-endpoint --vpc-endpoint-id vpce-dynamodb --add-route-table-ids rtb-main; aws ec2 create-vpc-endpoint --vpc-id ${VPC} --vpc-endpoint-type Gateway --service-name com.amazonaws.${REGION}.s3 --route-table-ids rtb-a rtb-main (gateway endpoints cost nothing; docs/operations.md, "Fixed egress")`,
    });
  });
});

describe('msgbridge doctor --stack: times', () => {
  const human = (...extra: string[]) =>
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
      },
    });

  it('prints when the token was renewed in KST with the zone, in UTC with --utc, and ISO 8601 with --json', async () => {
    // Act: the token was renewed at 05:56 UTC, 14:56 KST.
    const kst = await human();
    const utc = await human('--utc');
    const json = await human('--json', '--utc');

    // Assess
    const tokenLine = (stdout: string) =>
      stdout.split('\n').find((line) => line.startsWith('✔ gateway token:'));
    expect(tokenLine(kst.stdout)).toBe(
      '✔ gateway token: valid for 40 more min, renewed 2026-11-28 14:56:00 KST',
    );
    expect(kst.stdout).toContain(
      "the gateway accepted refresh-token's call from them at 2026-11-28 14:56:00 KST",
    );
    expect(tokenLine(utc.stdout)).toBe(
      '✔ gateway token: valid for 40 more min, renewed 2026-11-28 05:56:00 UTC',
    );
    const checks = (JSON.parse(json.stdout) as { checks: Array<{ name: string; detail: string }> })
      .checks;
    expect(checks.find((check) => check.name === 'gateway token')?.detail).toBe(
      'valid for 40 more min, renewed 2026-11-28T05:56:00.000Z',
    );
  });
});
