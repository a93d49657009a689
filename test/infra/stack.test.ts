import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it, vi } from 'vitest';
import { MsgbridgeFunction } from '../../lib/msgbridge-function.ts';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const synthStack = () => {
  const app = new App();
  const stack = new MsgbridgeStack(app, 'msgbridge-test', { gateway: TEST_GATEWAY });
  return { app, stack, template: Template.fromStack(stack) };
};

describe('MsgbridgeStack', () => {
  it('streams new items of the event table and expires them by TTL', () => {
    // Prepare / Act
    const { template } = synthStack();

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  });

  it('indexes accepted sends awaiting their report, and lets only reconcile-status query it', () => {
    const { template, stack } = synthStack();

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'awaiting-report',
          KeySchema: [
            { AttributeName: 'awaitingReportBucket', KeyType: 'HASH' },
            { AttributeName: 'acceptedAt', KeyType: 'RANGE' },
          ],
        }),
      ],
    });
    const reconcileRole = stack.scheduledJobs.reconcileStatus.role?.node.defaultChild;
    if (!CfnElement.isCfnElement(reconcileRole)) throw new Error('reconcile-status has no role');
    const withIndex = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes('/index/'),
    );
    expect(withIndex.map((policy) => policy.Properties.Roles)).toEqual([
      [{ Ref: stack.getLogicalId(reconcileRole) }],
    ]);
    const indexStatements = withIndex
      .flatMap(
        (policy) =>
          policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
      )
      .filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
    expect(indexStatements).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [expect.anything(), '/index/awaiting-report']] },
      }),
    ]);
  });

  it('keeps both tables, the credentials secret and the attachment bucket when the stack is deleted', () => {
    const { template } = synthStack();

    const tables = template.findResources('AWS::DynamoDB::GlobalTable');
    expect(Object.keys(tables)).toHaveLength(2);
    for (const table of Object.values(tables)) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties.Replicas[0].PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
      expect(table.Properties.Replicas[0].DeletionProtectionEnabled).toBe(true);
    }
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    const buckets = Object.values(template.findResources('AWS::S3::Bucket'));
    expect(buckets).toHaveLength(2);
    for (const bucket of buckets) expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('has a state table without a stream, so operational state never reaches subscribers', () => {
    const { template } = synthStack();

    const tables = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'));
    const withoutStream = tables.filter(
      (table) => table.Properties.StreamSpecification === undefined,
    );
    expect(withoutStream).toHaveLength(1);
  });

  it('passes the cdk-nag AwsSolutions checks with only explained acknowledgements', () => {
    const app = new App();
    new MsgbridgeStack(app, 'msgbridge-nag', { gateway: TEST_GATEWAY });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Synthesis throws on any unacknowledged error.
    const assembly = app.synth();

    expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag']);
  });
});

describe('MsgbridgeFunction', () => {
  it('bundles an ESM handler, the AWS SDK included, with the local esbuild that runs on Node', async () => {
    // Prepare: bundling on, whatever the tier's context says.
    const app = new App({ postCliContext: { 'aws:cdk:bundling-stacks': ['**'] } });
    const stack = new Stack(app, 'bundling-test');
    new MsgbridgeFunction(stack, 'probe', {
      entry: join(import.meta.dirname, 'fixtures/bundle-probe.ts'),
    });

    // Act
    const assembly = app.synth();
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      // Outside a MsgbridgeStack, the default observability: pass-through, INFO and WARN.
      TracingConfig: { Mode: 'PassThrough' },
      LoggingConfig: Match.objectLike({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
      }),
      // No --enable-source-maps: the map is not parsed at start.
      Environment: Match.absent(),
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    const assetDir = readdirSync(assembly.directory).find((name) => name.startsWith('asset.'));
    expect(assetDir).toBeDefined();
    const bundle = join(assembly.directory, String(assetDir), 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    // The source map is written beside the bundle for offline use, and the bundle names none.
    expect(existsSync(`${bundle}.map`)).toBe(true);
    expect(readFileSync(bundle, 'utf8')).not.toContain('sourceMappingURL');
    // The SDK's default credential chain is replaced by the environment's provider: no SSO,
    // shared-file or web-identity code in the bundle.
    const code = readFileSync(bundle, 'utf8');
    expect(code).not.toContain('sso_start_url');
    expect(code).not.toContain('AWS_WEB_IDENTITY_TOKEN_FILE');
    expect(code).toContain('AWS_SECRET_ACCESS_KEY');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDBUNDLEPROBE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'bundle-probe-secret');
    vi.stubEnv('AWS_PROFILE', 'a-profile-the-bundle-must-not-read');
    const module = (await import(pathToFileURL(bundle).href)) as {
      handler: (event: unknown) => Promise<unknown>;
    };
    await expect(module.handler({ text: '안녕 ok' })).resolves.toEqual({
      bytes: 7,
      sdk: 'function',
      accessKeyId: 'AKIDBUNDLEPROBE',
    });
    vi.unstubAllEnvs();
  });
});
