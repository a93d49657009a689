import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const SECRET_ARN =
  'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:platform/gateway-credentials-AbC123';
const KEY_ARN = 'arn:aws:kms:ap-northeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

// No asset bundling: these tests look at the secret and the policies only.
const synth = (props: Omit<MsgbridgeStackProps, 'gateway'>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-credentials', {
    gateway: TEST_GATEWAY,
    ...props,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // Synthesis throws on any unacknowledged cdk-nag finding.
  app.synth();
  return Template.fromStack(stack);
};

type Statement = { Action: string | string[]; Resource: unknown };

const statementsOn = (template: Template, resource: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
    .filter((statement) => JSON.stringify(statement.Resource).includes(resource));

const callerRoles = (template: Template): number =>
  Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
    JSON.stringify(fn.Properties.Environment ?? {}).includes('GATEWAY_API_URL'),
  ).length;

describe('gateway credentials', () => {
  it('creates an empty, retained secret encrypted with the data key by default', () => {
    const template = synth({});

    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'));
    const credentials = secrets.filter((secret) =>
      String(secret.Properties.Description).includes('gateway credentials'),
    );
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.DeletionPolicy).toBe('Retain');
    expect(credentials[0]?.Properties.KmsKeyId).toBeDefined();
  });

  it('uses an existing secret instead, read by every gateway caller and nobody else', () => {
    const template = synth({ gatewayCredentials: { secretArn: SECRET_ARN } });

    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'));
    expect(
      secrets.filter((secret) =>
        String(secret.Properties.Description).includes('gateway credentials'),
      ),
    ).toEqual([]);
    const reads = statementsOn(template, SECRET_ARN);
    expect(reads.length).toBeGreaterThan(0);
    for (const statement of reads)
      expect([statement.Action].flat()).toEqual(['secretsmanager:GetSecretValue']);
    // One statement per role that calls the gateway, none for the receivers or the publisher.
    expect(reads).toHaveLength(callerRoles(template));
    expect(statementsOn(template, KEY_ARN)).toEqual([]);
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.GatewayCredentialsArn?.Value).toBe(SECRET_ARN);
  });

  it('grants kms:Decrypt on the key of an existing secret encrypted with its own key', () => {
    const template = synth({ gatewayCredentials: { secretArn: SECRET_ARN, keyArn: KEY_ARN } });

    const decrypts = statementsOn(template, KEY_ARN);
    expect(decrypts).toHaveLength(callerRoles(template));
    for (const statement of decrypts) expect([statement.Action].flat()).toEqual(['kms:Decrypt']);
  });

  it('refuses a partial secret ARN and an alias for its key, with every problem at once', () => {
    let problems: readonly string[] = [];
    try {
      new MsgbridgeStack(new App(), 'invalid', {
        gateway: TEST_GATEWAY,
        gatewayCredentials: {
          secretArn: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:gateway',
          keyArn: 'alias/gateway',
        },
      });
    } catch (error) {
      if (!(error instanceof InvalidPropsError)) throw error;
      problems = error.problems;
    }

    expect(problems).toEqual([
      expect.stringMatching(/^gatewayCredentials\.secretArn must be the complete ARN of a secret/),
      expect.stringMatching(/^gatewayCredentials\.keyArn must be the ARN of a KMS key/),
    ]);
  });

  it('reads the existing secret from the context', () => {
    expect(
      stackPropsFromContext({
        gateway: TEST_GATEWAY,
        gatewayCredentials: { secretArn: SECRET_ARN, keyArn: KEY_ARN },
      }).gatewayCredentials,
    ).toEqual({ secretArn: SECRET_ARN, keyArn: KEY_ARN });
  });
});
