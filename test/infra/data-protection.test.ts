import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATEFUL_RESOURCE_TYPES } from '../../lib/data-protection.ts';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

/**
 * The stack policy that keeps a redeployment away from the data: it must name every stateful
 * resource of the template (read from the synthesized template, not from the construct tree the
 * policy is built from) and nothing else.
 */
describe('dataStackPolicy', () => {
  let stack: MsgbridgeStack;
  let resources: Record<string, { Type: string }>;

  beforeAll(() => {
    // Prepare: every optional stateful part on (polling, the statistics export, the alarm topic).
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    stack = new MsgbridgeStack(app, 'msgbridge', {
      gateway: TEST_GATEWAY,
      reportDelivery: 'both',
      moPolling: true,
      statisticsExport: {},
      alarmEmails: ['oncall@example.com'],
      egress: { mode: 'nat', natGateways: 2, maxAzs: 2 },
    });
    resources = Template.fromStack(stack).toJSON().Resources;
  });

  const idsOfType = (...types: string[]) =>
    Object.entries(resources)
      .filter(([, resource]) => types.includes(resource.Type))
      .map(([id]) => id)
      .sort();

  it('denies replacing or deleting every table, bucket, queue, key, bus, archive, secret, Elastic IP and topic', () => {
    // Act
    const [allow, deny] = stack.bridge.dataStackPolicy().Statement;

    // Assess
    expect(allow).toEqual({ Effect: 'Allow', Principal: '*', Action: 'Update:*', Resource: '*' });
    expect(deny?.Effect).toBe('Deny');
    expect(deny?.Action).toEqual(['Update:Replace', 'Update:Delete']);
    const denied = [deny?.Resource ?? []]
      .flat()
      .map((resource) => resource.replace(/^LogicalResourceId\//, ''))
      .sort();
    expect(denied).toEqual(idsOfType(...STATEFUL_RESOURCE_TYPES));
    // What that is in this stack, type by type.
    expect(idsOfType('AWS::DynamoDB::GlobalTable')).toHaveLength(2);
    expect(idsOfType('AWS::S3::Bucket')).toHaveLength(2);
    expect(idsOfType('AWS::KMS::Key')).toHaveLength(1);
    expect(idsOfType('AWS::Events::EventBus', 'AWS::Events::Archive')).toHaveLength(2);
    expect(idsOfType('AWS::SecretsManager::Secret')).toHaveLength(2);
    expect(idsOfType('AWS::EC2::EIP')).toHaveLength(2);
    expect(idsOfType('AWS::SNS::Topic')).toHaveLength(1);
    expect(idsOfType('AWS::SQS::Queue').length).toBeGreaterThanOrEqual(6);
  });

  it('leaves the functions, roles, schedules, alarms and the network free to change', () => {
    // Act
    const denied = JSON.stringify(stack.bridge.dataStackPolicy().Statement[1]?.Resource);

    // Assess
    const stateless = idsOfType(
      'AWS::Lambda::Function',
      'AWS::IAM::Role',
      'AWS::IAM::Policy',
      'AWS::Scheduler::Schedule',
      'AWS::CloudWatch::Alarm',
      'AWS::EC2::NatGateway',
      'AWS::Logs::LogGroup',
    );
    expect(stateless.length).toBeGreaterThan(30);
    for (const id of stateless) expect(denied).not.toContain(`/${id}"`);
  });

  it('fits the size CloudFormation accepts for a stack policy body (16 KB)', () => {
    expect(JSON.stringify(stack.bridge.dataStackPolicy()).length).toBeLessThan(16_384);
  });
});
