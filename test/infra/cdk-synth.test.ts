import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** The CLI's environment without the tier's no-bundling context: the real synth bundles. */
const cliEnvironment = (): NodeJS.ProcessEnv => {
  const { CDK_CONTEXT_JSON: _tierContext, ...environment } = process.env;
  return environment;
};

type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, unknown>;
};

/**
 * `npx cdk synth` exactly as an operator runs it, with the example production configuration of
 * docs/examples: the CDK CLI, `bin/msgbridge.ts`, the context parsing, bundling and cdk-nag.
 */
describe('npx cdk synth with docs/examples/production-context.json', () => {
  let outDir: string;
  let output: { stdout: string; stderr: string };
  let template: Template;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'msgbridge-synth-'));
    const context = await readFile('docs/examples/production-context.json', 'utf8');
    output = await run(
      'npx',
      [
        'cdk',
        'synth',
        '--quiet',
        '--no-notices',
        '--output',
        outDir,
        '--context',
        `msgbridge=${JSON.stringify(JSON.parse(context))}`,
      ],
      {
        env: { ...cliEnvironment(), CDK_DISABLE_CLI_TELEMETRY: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    template = JSON.parse(await readFile(join(outDir, 'msgbridge.template.json'), 'utf8'));
  }, 300_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('synthesizes with no cdk-nag finding and no warning', () => {
    expect(`${output.stdout}\n${output.stderr}`).not.toMatch(/\[(Error|Warning) at /);
    expect(output.stderr).not.toMatch(/AwsSolutions-/);
  });

  it('sets every feature flag: the CLI reports none unconfigured', () => {
    // The CLI prints "N feature flags are not configured" for the recommended flags cdk.json lacks.
    expect(`${output.stdout}\n${output.stderr}`).not.toMatch(
      /feature flags? (is|are) not configured/,
    );
  });

  it('applies the example settings', () => {
    const resources = Object.values(template.Resources);
    const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
    // Two NAT gateways, each with its own Elastic IP.
    expect(ofType('AWS::EC2::NatGateway')).toHaveLength(2);
    expect(ofType('AWS::EC2::EIP')).toHaveLength(2);
    // The example chooses the REST API front: its resource policy accepts only the listed sources.
    const [api] = ofType('AWS::ApiGateway::RestApi');
    expect(JSON.stringify(api?.Properties?.Policy)).toContain('198.51.100.16/28');
    // reportDelivery "both" deploys the report poller.
    expect(JSON.stringify(template.Resources)).toContain('poll-reports');
    // Archive retention from the context.
    const [archive] = ofType('AWS::Events::Archive');
    expect(archive?.Properties?.RetentionDays).toBe(90);
    expect(Object.keys(template.Outputs ?? {})).toContain('GatewayEgressIps');
    // Alarms go to a topic of the stack, encrypted with the data key, with one subscription per address.
    const subscriptions = ofType('AWS::SNS::Subscription').map((sub) => sub.Properties);
    expect(subscriptions).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: 'platform-oncall@example.com' }),
      expect.objectContaining({ Protocol: 'email', Endpoint: 'messaging-team@example.com' }),
    ]);
    const [topic] = ofType('AWS::SNS::Topic');
    expect(topic?.Properties?.KmsMasterKeyId).toBeDefined();
    // With every optional part on, still everything under the data key, but the event bus's
    // dead-letter queue: it holds what the bus could not encrypt or decrypt with that key, so it
    // has SQS's own keys (lib/event-bus-dlq.ts).
    const busDeadLetters = JSON.stringify(
      (ofType('AWS::Events::EventBus')[0]?.Properties?.DeadLetterConfig as { Arn?: unknown })?.Arn,
    );
    const queues = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === 'AWS::SQS::Queue',
    );
    expect(queues.filter(([id]) => busDeadLetters.includes(`"${id}"`))).toEqual([
      [
        expect.any(String),
        expect.objectContaining({
          Properties: expect.objectContaining({ SqsManagedSseEnabled: true }),
        }),
      ],
    ]);
    for (const [id, queue] of queues)
      if (!busDeadLetters.includes(`"${id}"`))
        expect(queue.Properties?.KmsMasterKeyId).toBeDefined();
    for (const logGroup of ofType('AWS::Logs::LogGroup'))
      expect(logGroup.Properties?.KmsKeyId).toBeDefined();
    for (const table of ofType('AWS::DynamoDB::GlobalTable'))
      expect(table.Properties?.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
    // The daily statistics export, on its Scheduler cron.
    const schedules = ofType('AWS::Scheduler::Schedule').map((schedule) => schedule.Properties);
    expect(schedules).toContainEqual(
      expect.objectContaining({
        ScheduleExpression: 'cron(30 1 * * ? *)',
        ScheduleExpressionTimezone: 'Asia/Seoul',
      }),
    );
  });
});
