/**
 * Every AWS call a function made in a test, replayed against what deploys: the function's role
 * policies in the synthesized template, with the resource policies of what it calls (key policy,
 * queue and bucket policies), through an IAM policy simulator (`@cloud-copilot/iam-simulate`,
 * AGPL-3.0, a test-only dependency that is never shipped). Each call becomes the requests IAM
 * authorizes for it, the KMS calls the service makes with the caller's permissions included:
 *
 * - DynamoDB and its streams on a table under a customer managed key: `kms:Decrypt` (DynamoDB
 *   decrypts the table key with the caller's permission; AWS KMS developer guide, "How Amazon
 *   DynamoDB uses AWS KMS").
 * - SQS on a queue under a customer managed key: `kms:GenerateDataKey` and `kms:Decrypt` to send,
 *   `kms:Decrypt` to receive (SQS developer guide, "Key management").
 * - S3 into a bucket whose default encryption is SSE-KMS: `kms:GenerateDataKey` to put,
 *   `kms:Decrypt` to get (S3 user guide, "Using SSE-KMS").
 * - Secrets Manager on a secret under a customer managed key: `kms:Decrypt` through Secrets
 *   Manager (`kms:ViaService`), with the secret's ARN as encryption context.
 *
 * A denied request fails the tier naming the function, the call and the statement it lacks.
 */
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { referencedId, resourcesOfType } from '../../aws-semantics/cloudformation-template.ts';
import type { RecordedCall } from '../../local/aws/call-recorder.ts';
import type { DeploymentModel } from '../../local/stack/deployment-model.ts';

/** One request IAM authorizes: an action on a resource, with the context keys it carries. */
export interface IamRequest {
  readonly functionName: string;
  /** The SDK call it stands for: `DynamoDB.PutItem`. */
  readonly call: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | readonly string[]>>;
  /** The logical id of the resource whose resource policy applies, if any. */
  readonly resourcePolicyOf?: string;
}

export interface IamDenial {
  readonly request: IamRequest;
  readonly result: string;
  /** The statement the function's role lacks. */
  readonly missing: string;
}

export interface IamReplayResult {
  /** Distinct requests checked. */
  readonly checked: number;
  readonly denials: readonly IamDenial[];
  /** Calls that could not be turned into requests, or requests the simulator refused to run. */
  readonly unreadable: readonly string[];
  /**
   * Action grants of the functions' roles (`function|action`), those a recorded
   * call used, and those only the Lambda service uses on the function's behalf (its logs, traces
   * and network interfaces), which no call of the function's code makes.
   */
  readonly grants: {
    readonly all: readonly string[];
    readonly used: readonly string[];
    readonly service: readonly string[];
  };
}

const DYNAMODB_TRANSACT: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

const SQS_ACTION: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

const S3_ACTION: Record<string, string> = {
  PutObject: 'PutObject',
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
  GetObject: 'GetObject',
  HeadObject: 'GetObject',
  ListObjectsV2: 'ListBucket',
  DeleteObject: 'DeleteObject',
  DeleteObjects: 'DeleteObject',
  AbortMultipartUpload: 'AbortMultipartUpload',
  ListParts: 'ListMultipartUploadParts',
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** The IAM requests one recorded call makes, or why it cannot be read. */
export const iamRequestsOf = (
  model: DeploymentModel,
  call: RecordedCall,
): IamRequest[] | string => {
  const { region, account, partition } = model.environment;
  const { input } = call;
  const base = { functionName: call.functionName, call: `${call.service}.${call.operation}` };
  const secure = { 'aws:SecureTransport': 'true' };
  const tableArn = (name: string) => `arn:${partition}:dynamodb:${region}:${account}:table/${name}`;
  /** The KMS call `service` makes with key `keyId` on the caller's behalf (`kms:ViaService`). */
  const kmsRequest = (
    action: string,
    keyId: string,
    service: string,
    context: Record<string, string> = {},
  ): IamRequest => ({
    ...base,
    action,
    resource: model.physical(keyId).attributes.Arn ?? '',
    context: {
      ...secure,
      'kms:ViaService': `${service}.${region}.amazonaws.com`,
      'kms:CallerAccount': account,
      ...context,
    },
    resourcePolicyOf: keyId,
  });
  const tableKeyDecrypt = (tableName: string): IamRequest[] => {
    const tableId = model.logicalIdOf('AWS::DynamoDB::GlobalTable', tableName);
    const keyId = tableId
      ? model.stack.tables().find((table) => table.logicalId === tableId)?.kmsKeyId
      : undefined;
    return keyId === undefined ? [] : [kmsRequest('kms:Decrypt', keyId, 'dynamodb')];
  };

  switch (call.service) {
    case 'DynamoDB': {
      const onTable = (
        action: string,
        table: string,
        keys: unknown,
        index?: string,
      ): IamRequest[] => [
        {
          ...base,
          action: `dynamodb:${action}`,
          resource: index === undefined ? tableArn(table) : `${tableArn(table)}/index/${index}`,
          context: {
            ...secure,
            ...(Array.isArray(keys) && keys.length > 0
              ? { 'dynamodb:LeadingKeys': keys as string[] }
              : {}),
          },
        },
        ...tableKeyDecrypt(table),
      ];
      if (call.operation === 'TransactWriteItems' || call.operation === 'TransactGetItems') {
        const items = (input.TransactItems ?? []) as Array<{
          operation?: string;
          TableName?: string;
          LeadingKeys?: string[];
        }>;
        return items.flatMap((item) =>
          onTable(
            DYNAMODB_TRANSACT[item.operation ?? ''] ?? item.operation ?? '',
            item.TableName ?? '',
            item.LeadingKeys,
          ),
        );
      }
      if (Array.isArray(input.Tables))
        return (input.Tables as Array<{ TableName: string; LeadingKeys: string[] }>).flatMap(
          (table) => onTable(call.operation, table.TableName, table.LeadingKeys),
        );
      const table = text(input.TableName);
      if (table === undefined) return `${base.call} names no table`;
      return onTable(call.operation, table, input.LeadingKeys, text(input.IndexName));
    }
    case 'DynamoDBStreams': {
      const streams =
        text(input.StreamArn) !== undefined
          ? [String(input.StreamArn)]
          : // GetRecords names only an iterator: the stream of the function's own event source.
            model.stack
              .eventSourceMappings()
              .filter(
                (mapping) =>
                  mapping.kind === 'dynamodb' &&
                  model.stack.functions().find((fn) => fn.logicalId === mapping.functionId)
                    ?.name === call.functionName,
              )
              .map((mapping) => model.physical(mapping.sourceId).attributes.StreamArn ?? '');
      if (streams.length === 0) return `${base.call} names no stream`;
      return streams.flatMap((stream) => {
        const table = /:table\/([^/]+)\/stream\//.exec(stream)?.[1] ?? '';
        return [
          { ...base, action: `dynamodb:${call.operation}`, resource: stream, context: secure },
          ...tableKeyDecrypt(table),
        ];
      });
    }
    case 'SQS': {
      const url = text(input.QueueUrl);
      if (url === undefined) return `${base.call} names no queue`;
      const name = url.split('/').at(-1) ?? '';
      const queueId = model.logicalIdOf('AWS::SQS::Queue', url);
      const arn = `arn:${partition}:sqs:${region}:${account}:${name}`;
      const action = `sqs:${SQS_ACTION[call.operation] ?? call.operation}`;
      const keyId = queueId
        ? model.stack.queues().find((queue) => queue.logicalId === queueId)?.kmsKeyId
        : undefined;
      const kmsActions =
        keyId === undefined
          ? []
          : action === 'sqs:SendMessage'
            ? ['kms:GenerateDataKey', 'kms:Decrypt']
            : action === 'sqs:ReceiveMessage'
              ? ['kms:Decrypt']
              : [];
      return [
        {
          ...base,
          action,
          resource: arn,
          context: secure,
          ...(queueId ? { resourcePolicyOf: queueId } : {}),
        },
        ...kmsActions.map((kmsAction) => kmsRequest(kmsAction, keyId ?? '', 'sqs')),
      ];
    }
    case 'S3': {
      const bucket = text(input.Bucket);
      if (bucket === undefined) return `${base.call} names no bucket`;
      const action = `s3:${S3_ACTION[call.operation] ?? call.operation}`;
      const bucketId = model.logicalIdOf('AWS::S3::Bucket', bucket);
      const resource =
        action === 's3:ListBucket'
          ? `arn:${partition}:s3:::${bucket}`
          : `arn:${partition}:s3:::${bucket}/${text(input.Key) ?? ''}`;
      const keyId = bucketId ? bucketKmsKey(model, bucketId) : undefined;
      const kmsAction =
        keyId === undefined
          ? undefined
          : action === 's3:PutObject'
            ? 'kms:GenerateDataKey'
            : call.operation === 'GetObject'
              ? 'kms:Decrypt'
              : undefined;
      return [
        {
          ...base,
          action,
          resource,
          context: {
            ...secure,
            ...(action === 's3:ListBucket' ? { 's3:prefix': text(input.Prefix) ?? '' } : {}),
          },
          ...(bucketId ? { resourcePolicyOf: bucketId } : {}),
        },
        ...(kmsAction && keyId ? [kmsRequest(kmsAction, keyId, 's3')] : []),
      ];
    }
    case 'SecretsManager': {
      const id = text(input.SecretId);
      if (id === undefined) return `${base.call} names no secret`;
      const secretId = model.logicalIdOf('AWS::SecretsManager::Secret', id);
      const arn = secretId ? model.physical(secretId).ref : id;
      const keyId = secretId
        ? referencedId(model.stack.resource(secretId).Properties?.KmsKeyId)
        : undefined;
      return [
        { ...base, action: `secretsmanager:${call.operation}`, resource: arn, context: secure },
        ...(keyId && call.operation === 'GetSecretValue'
          ? [
              kmsRequest('kms:Decrypt', keyId, 'secretsmanager', {
                'kms:EncryptionContext:SecretARN': arn,
              }),
            ]
          : []),
      ];
    }
    case 'EventBridge': {
      const buses = (input.EventBusNames ?? ['default']) as string[];
      return buses.map((bus) => ({
        ...base,
        action: `events:${call.operation}`,
        resource: bus.startsWith('arn:')
          ? bus
          : `arn:${partition}:events:${region}:${account}:event-bus/${bus}`,
        context: secure,
      }));
    }
    default:
      return `${base.call}: no IAM mapping for the ${call.service} service`;
  }
};

/** The logical id of the KMS key a bucket's default encryption uses, if SSE-KMS with one. */
const bucketKmsKey = (model: DeploymentModel, bucketId: string): string | undefined => {
  const rules = (
    model.stack.resource(bucketId).Properties?.BucketEncryption as
      | {
          ServerSideEncryptionConfiguration?: Array<{
            ServerSideEncryptionByDefault?: { SSEAlgorithm?: string; KMSMasterKeyID?: unknown };
          }>;
        }
      | undefined
  )?.ServerSideEncryptionConfiguration;
  const rule = rules?.[0]?.ServerSideEncryptionByDefault;
  return rule?.SSEAlgorithm === 'aws:kms' ? referencedId(rule.KMSMasterKeyID) : undefined;
};

/** A principal's ARN and the identity policies IAM evaluates for it. */
export interface Role {
  readonly arn: string;
  readonly policies: ReadonlyArray<{ readonly name: string; readonly policy: PolicyDocument }>;
}

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: ReadonlyArray<Record<string, unknown>>;
}

export interface ReplayOptions {
  /**
   * Principals the template does not create, by the name their calls were recorded under: a
   * producer's role, in this account or another, with the policies its owner gives it. A request
   * from another account than the resource's is allowed only where the resource's policy allows
   * it too, as IAM decides cross-account access.
   */
  readonly principals?: ReadonlyMap<string, Role>;
}

/** The role of each function, with the identity policies the template attaches to it. */
const rolesOf = (model: DeploymentModel): Map<string, Role> => {
  const { stack } = model;
  const attached = resourcesOfType(stack.template, 'AWS::IAM::Policy');
  const roles = new Map<string, Role>();
  for (const fn of stack.functions()) {
    if (fn.roleId === undefined) continue;
    const role = stack.resource(fn.roleId);
    const inline = (
      (role.Properties?.Policies ?? []) as Array<{ PolicyName: string; PolicyDocument: unknown }>
    ).map((policy) => ({
      name: policy.PolicyName,
      policy: model.resolve(policy.PolicyDocument) as PolicyDocument,
    }));
    const policies = attached
      .filter(([, policy]) =>
        ((policy.Properties?.Roles ?? []) as unknown[]).some(
          (ref) => referencedId(ref) === fn.roleId,
        ),
      )
      .map(([id, policy]) => ({
        name: id,
        policy: model.resolve(policy.Properties?.PolicyDocument) as PolicyDocument,
      }));
    roles.set(fn.name, {
      arn: model.physical(fn.roleId).attributes.Arn ?? '',
      policies: [...inline, ...policies],
    });
  }
  return roles;
};

/** The resource policy of a resource, by its logical id: key, queue or bucket policy. */
const resourcePolicyOf = (
  model: DeploymentModel,
  logicalId: string,
): PolicyDocument | undefined => {
  const { stack } = model;
  const resource = stack.resource(logicalId);
  if (resource.Type === 'AWS::KMS::Key')
    return model.resolve(resource.Properties?.KeyPolicy) as PolicyDocument;
  const holder =
    resource.Type === 'AWS::SQS::Queue'
      ? resourcesOfType(stack.template, 'AWS::SQS::QueuePolicy').find(([, policy]) =>
          ((policy.Properties?.Queues ?? []) as unknown[]).some(
            (ref) => referencedId(ref) === logicalId,
          ),
        )
      : resource.Type === 'AWS::S3::Bucket'
        ? resourcesOfType(stack.template, 'AWS::S3::BucketPolicy').find(
            ([, policy]) => referencedId(policy.Properties?.Bucket) === logicalId,
          )
        : undefined;
  return holder
    ? (model.resolve(holder[1].Properties?.PolicyDocument) as PolicyDocument)
    : undefined;
};

/** Every string in `value` that names a resource of `local`, as `deployed` names it. */
const translated = (value: unknown, local: DeploymentModel, deployed: DeploymentModel): unknown => {
  if (typeof value === 'string') return local.translate(value, deployed);
  if (Array.isArray(value)) return value.map((each) => translated(each, local, deployed));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, each]) => [key, translated(each, local, deployed)]),
  );
};

/**
 * Replays `calls`, made against the local run (`model`), against the stack as it deploys
 * (`deployed`): each local queue URL, stream ARN or secret becomes the deployed resource's.
 */
export const replayIam = async (
  deployment: { readonly model: DeploymentModel; readonly deployed: DeploymentModel },
  calls: readonly RecordedCall[],
  options: ReplayOptions = {},
): Promise<IamReplayResult> => {
  const model = deployment.deployed;
  const templateRoles = rolesOf(model);
  const roles = new Map([...templateRoles, ...(options.principals ?? [])]);
  const unreadable: string[] = [];
  const requests = new Map<string, IamRequest>();
  for (const call of calls) {
    const mapped = iamRequestsOf(model, {
      ...call,
      input: translated(call.input, deployment.model, model) as RecordedCall['input'],
    });
    if (typeof mapped === 'string') {
      unreadable.push(`${call.functionName}: ${mapped}`);
      continue;
    }
    for (const request of mapped) requests.set(JSON.stringify(request), request);
  }
  const denials: IamDenial[] = [];
  const used = new Set<string>();
  for (const request of requests.values()) {
    const role = roles.get(request.functionName);
    if (!role) {
      unreadable.push(`${request.functionName}: no role in the template`);
      continue;
    }
    const resourcePolicy =
      request.resourcePolicyOf === undefined
        ? undefined
        : resourcePolicyOf(model, request.resourcePolicyOf);
    const simulation: Simulation = {
      request: {
        principal: role.arn,
        action: request.action,
        resource: { resource: request.resource, accountId: model.environment.account },
        contextVariables: { ...request.context } as Record<string, string | string[]>,
      },
      identityPolicies: role.policies.map((policy) => ({
        name: policy.name,
        policy: policy.policy,
      })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    };
    const response = await runSimulation(simulation, {});
    if (response.resultType === 'error') {
      unreadable.push(
        `${request.functionName}: ${request.call} → ${request.action} on ${request.resource}: the simulator refused it (${JSON.stringify(response.errors).slice(0, 300)})`,
      );
      continue;
    }
    if (response.overallResult !== 'Allowed') {
      denials.push({
        request,
        result: response.overallResult,
        missing: JSON.stringify({
          Effect: 'Allow',
          Action: request.action,
          Resource: request.resource,
        }),
      });
      continue;
    }
    const result = response.resultType === 'single' ? response.result : undefined;
    for (const statement of result?.analysis?.identityAnalysis?.allowStatements ?? []) {
      const explain = statement.explain as {
        identifier?: string;
        actions?:
          | { action: string; matches: boolean }
          | Array<{ action: string; matches: boolean }>;
      };
      // One explanation per action, or a single one when the statement names one action.
      for (const action of [explain.actions ?? []].flat())
        if (action.matches) used.add(`${request.functionName}|${action.action}`);
    }
  }
  // Every action a function's role allows (as its statements name it, wildcards and all): a
  // grant, by function and action, so that runs of differently configured stacks add up.
  const grants = new Set<string>();
  for (const [name, role] of templateRoles)
    for (const policy of role.policies)
      for (const statement of policy.policy.Statement)
        if (statement.Effect === 'Allow')
          for (const action of [statement.Action ?? []].flat() as string[])
            grants.add(`${name}|${action}`);
  return {
    checked: requests.size,
    denials,
    unreadable,
    grants: {
      all: [...grants],
      used: [...grants].filter((grant) => used.has(grant)),
      service: [...grants].filter((grant) => LAMBDA_SERVICE_ACTION.test(grant.split('|')[1] ?? '')),
    },
  };
};

/** Actions the Lambda service takes with a function's role: logs, X-Ray, VPC network interfaces. */
const LAMBDA_SERVICE_ACTION = /^(logs|xray|ec2):/;

/** One line per denial: the function, the call, and the statement its role lacks. */
export const describeDenials = (denials: readonly IamDenial[]): string =>
  denials
    .map(
      ({ request, result, missing }) =>
        `${request.functionName}: ${request.call} needs ${request.action} on ${request.resource} (${result}); its role lacks ${missing}`,
    )
    .join('\n');
