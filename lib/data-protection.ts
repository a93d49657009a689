import { CfnResource, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The CloudFormation types whose replacement or deletion loses something a redeployment of the
 * functions must never touch: stored items (tables), attachments and payloads (buckets), send
 * requests and report checks (queues), the key all of it is encrypted with, the bus subscribers'
 * rules are attached to and its archive, the secrets, the Elastic IPs registered in the gateway
 * console, and the alarm topic whose e-mail subscriptions were confirmed by hand.
 */
export const STATEFUL_RESOURCE_TYPES: readonly string[] = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::SQS::Queue',
  'AWS::KMS::Key',
  'AWS::Events::EventBus',
  'AWS::Events::Archive',
  'AWS::SecretsManager::Secret',
  'AWS::EC2::EIP',
  'AWS::SNS::Topic',
];

/** The stateful resources below `scope`: each CloudFormation resource of those types. */
export const statefulResources = (scope: IConstruct): CfnResource[] =>
  scope.node
    .findAll()
    .filter(
      (construct): construct is CfnResource =>
        CfnResource.isCfnResource(construct) &&
        STATEFUL_RESOURCE_TYPES.includes(construct.cfnResourceType),
    );

/** A CloudFormation stack policy document. */
export interface StackPolicy {
  readonly Statement: readonly {
    readonly Effect: 'Allow' | 'Deny';
    readonly Principal: '*';
    readonly Action: string | readonly string[];
    readonly Resource: string | readonly string[];
  }[];
}

/**
 * The stack policy that keeps every update of the stack away from the stateful resources below
 * `scope`: any update is allowed, except replacing or deleting one of them. Set once on the
 * deployed stack (`aws cloudformation set-stack-policy`), it makes CloudFormation refuse a
 * deployment that would replace a table, bucket, queue, key, bus, archive, secret, Elastic IP or
 * alarm topic, whatever changed in the app; functions, schedules, alarms and the rest deploy as
 * before, and the stateful resources may still be updated in place.
 */
export const dataStackPolicy = (scope: IConstruct): StackPolicy => ({
  Statement: [
    { Effect: 'Allow', Principal: '*', Action: 'Update:*', Resource: '*' },
    {
      Effect: 'Deny',
      Principal: '*',
      Action: ['Update:Replace', 'Update:Delete'],
      Resource: statefulResources(scope).map(
        (resource) => `LogicalResourceId/${Stack.of(resource).resolve(resource.logicalId)}`,
      ),
    },
  ],
});
