import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import {
  appWithCdkJsonFlags,
  CDK_JSON_FEATURE_FLAGS,
  RECOMMENDED_FEATURE_FLAGS,
} from '../support/cdk-app.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

/**
 * Asset hashes change with every edit of a function's code (and with the bundler's version), so
 * they are replaced by a fixed marker: the snapshot then changes only when the infrastructure does.
 */
const normaliseAssetHashes = (template: unknown): unknown =>
  JSON.parse(
    JSON.stringify(template)
      .replace(/[0-9a-f]{64}(\.zip|\.json)?/g, (_, extension: string | undefined) =>
        extension ? `<asset-hash>${extension}` : '<asset-hash>',
      )
      .replace(/cdk-hnb659fds-assets-\$\{AWS::AccountId\}-\$\{AWS::Region\}/g, '<asset-bucket>'),
  );

/**
 * A regression net, not a specification: the intent is asserted in the other infra tests. When
 * a change to lib/ is deliberate, review the diff of the snapshot file and update it with
 * `npx vitest run --project infra test/infra/snapshot.test.ts -u`.
 */
describe('synthesized template', () => {
  it('matches the reviewed snapshot, asset hashes aside', async () => {
    // Prepare: the feature flags of cdk.json, as `npx cdk synth` and `cdk deploy` build it.
    const app = appWithCdkJsonFlags({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new MsgbridgeStack(app, 'msgbridge', {
      gateway: TEST_GATEWAY,
      reportDelivery: 'both',
      moPolling: true,
    });

    // Act
    const template = normaliseAssetHashes(Template.fromStack(stack).toJSON());

    // Assess
    await expect(`${JSON.stringify(template, null, 2)}\n`).toMatchFileSnapshot(
      '__snapshots__/msgbridge.template.json',
    );
  });

  it('is built with every feature flag aws-cdk-lib recommends, as cdk.json sets them', () => {
    // A newer aws-cdk-lib recommends new flags: set them in cdk.json (and review the snapshot).
    expect(CDK_JSON_FEATURE_FLAGS).toEqual(RECOMMENDED_FEATURE_FLAGS);
  });

  it('normalises asset hashes and nothing else', () => {
    const hash = 'a'.repeat(64);
    expect(
      normaliseAssetHashes({
        S3Key: `${hash}.zip`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub expression
        S3Bucket: { 'Fn::Sub': 'cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}' },
        Name: 'receive-reports',
        Digest: 'b'.repeat(63),
      }),
    ).toEqual({
      S3Key: '<asset-hash>.zip',
      S3Bucket: { 'Fn::Sub': '<asset-bucket>' },
      Name: 'receive-reports',
      Digest: 'b'.repeat(63),
    });
  });
});
