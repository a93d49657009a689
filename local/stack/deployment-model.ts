/**
 * What a deployment of a template would be named: every resource's physical name, ARN and other
 * attributes in one account and Region, and the template's intrinsic functions resolved against
 * them. The local run creates its tables, queues, buckets, secrets and bus under these names, the
 * functions get their environment resolved here, and the IAM check reads the same ARNs, so a
 * function's call, its environment and its role's policy all name the same resource.
 *
 * Names follow CloudFormation's pattern for resources without an explicit name
 * (`<stack>-<logical id>`), made deterministic so a restarted local run finds its tables again.
 */
import { createHash } from 'node:crypto';
import type { StackTemplate } from '../../aws-semantics/cloudformation-template.ts';
import { TemplateShapeError } from '../../aws-semantics/cloudformation-template.ts';

export interface DeploymentEnvironment {
  readonly region: string;
  readonly account: string;
  readonly partition: string;
  readonly stackName: string;
}

/** A resource as deployed: what `Ref` gives and what `Fn::GetAtt` can ask for. */
export interface PhysicalResource {
  readonly type: string;
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Changes the deployment makes to a resource's attributes (the local run's real queue URLs). */
export type PhysicalOverride = (
  logicalId: string,
  resource: PhysicalResource,
) => Partial<Pick<PhysicalResource, 'ref'>> & { readonly attributes?: Record<string, string> };

const hash = (text: string, length: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

export class DeploymentModel {
  private readonly physicals = new Map<string, PhysicalResource>();

  constructor(
    readonly stack: StackTemplate,
    readonly environment: DeploymentEnvironment,
    override?: PhysicalOverride,
  ) {
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      const physical = this.name(logicalId, resource.Type, resource.Properties ?? {});
      const changed = override?.(logicalId, physical);
      this.physicals.set(
        logicalId,
        changed
          ? {
              type: physical.type,
              ref: changed.ref ?? physical.ref,
              attributes: { ...physical.attributes, ...changed.attributes },
            }
          : physical,
      );
    }
  }

  physical(logicalId: string): PhysicalResource {
    const found = this.physicals.get(logicalId);
    if (!found) throw new TemplateShapeError(`no resource ${logicalId} to resolve`);
    return found;
  }

  /** The logical id of the resource of this type whose `Ref` or attribute is `value`, if any. */
  logicalIdOf(type: string, value: string): string | undefined {
    for (const [logicalId, physical] of this.physicals) {
      if (physical.type !== type) continue;
      if (physical.ref === value || Object.values(physical.attributes).includes(value))
        return logicalId;
    }
    return undefined;
  }

  /**
   * The same value in `other`, a model of the same stack: a queue URL of this deployment becomes
   * that queue's URL in the other. Values that name no resource come back unchanged.
   */
  translate(value: string, other: DeploymentModel): string {
    for (const [logicalId, physical] of this.physicals) {
      if (physical.ref === value) return other.physical(logicalId).ref;
      for (const [attribute, each] of Object.entries(physical.attributes))
        if (each === value) return other.physical(logicalId).attributes[attribute] ?? value;
    }
    return value;
  }

  /** The template value with every intrinsic function resolved against this deployment. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((each) => this.resolve(each));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined && isIntrinsic(first[0]))
      return this.intrinsic(first[0], first[1]);
    return Object.fromEntries(entries.map(([key, each]) => [key, this.resolve(each)]));
  }

  /** A resolved value that must be a string. */
  resolveString(value: unknown, where: string): string {
    const resolved = this.resolve(value);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new TemplateShapeError(`${where}: resolves to ${JSON.stringify(resolved)}, not a string`);
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument)
          ? argument.map(String)
          : String(argument).split('.');
        return this.attribute(String(logicalId), String(attribute));
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        const items = this.resolve(list) as unknown[];
        return items[Number(this.resolve(index))];
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return String(this.resolve(text)).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(argument)
          ? (argument as [string, Record<string, unknown>])
          : [String(argument), {}];
        return text.replace(/\$\{([^}!]+)\}/g, (_, expression: string) => {
          if (Object.hasOwn(variables, expression))
            return String(this.resolve(variables[expression]));
          const [logicalId, attribute] = expression.split('.');
          return attribute === undefined
            ? String(this.ref(String(logicalId)))
            : this.attribute(String(logicalId), attribute);
        });
      }
      case 'Fn::GetAZs':
        return ['a', 'b', 'c'].map((zone) => `${this.environment.region}${zone}`);
      case 'Fn::Base64':
        return Buffer.from(String(this.resolve(argument))).toString('base64');
      default:
        throw new TemplateShapeError(`${name} cannot be resolved without a deployment`);
    }
  }

  private ref(name: string): unknown {
    const { region, account, partition, stackName } = this.environment;
    switch (name) {
      case 'AWS::Region':
        return region;
      case 'AWS::AccountId':
        return account;
      case 'AWS::Partition':
        return partition;
      case 'AWS::StackName':
        return stackName;
      case 'AWS::URLSuffix':
        return partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
      case 'AWS::StackId':
        return `arn:${partition}:cloudformation:${region}:${account}:stack/${stackName}/local`;
      case 'AWS::NoValue':
        return undefined;
      default:
        return this.physical(name).ref;
    }
  }

  /**
   * An attribute of a resource. One this model does not name (a VPC's default security group,
   * say) stands for itself, `<logical id>.<attribute>`: nothing msgbridge runs reads it, and a
   * policy that names it names a resource no function calls.
   */
  private attribute(logicalId: string, attribute: string): string {
    return this.physical(logicalId).attributes[attribute] ?? `${logicalId}.${attribute}`;
  }

  private name(
    logicalId: string,
    type: string,
    properties: Record<string, unknown>,
  ): PhysicalResource {
    const { region, account, partition, stackName } = this.environment;
    const named = `${stackName}-${logicalId}`;
    // IAM is global: its ARNs name the account but no Region.
    const arn = (service: string, resource: string, regional = true) =>
      `arn:${partition}:${service}:${regional ? region : ''}:${account}:${resource}`;
    switch (type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table': {
        const table = arn('dynamodb', `table/${named}`);
        return {
          type,
          ref: named,
          attributes: { Arn: table, StreamArn: `${table}/stream/1970-01-01T00:00:00.000` },
        };
      }
      case 'AWS::SQS::Queue': {
        const queueName = named.slice(0, 80);
        return {
          type,
          ref: `https://sqs.${region}.amazonaws.com/${account}/${queueName}`,
          attributes: {
            Arn: arn('sqs', queueName),
            QueueName: queueName,
            QueueUrl: `https://sqs.${region}.amazonaws.com/${account}/${queueName}`,
          },
        };
      }
      case 'AWS::S3::Bucket': {
        const bucket = named.toLowerCase().slice(0, 63);
        return {
          type,
          ref: bucket,
          attributes: {
            Arn: `arn:${partition}:s3:::${bucket}`,
            DomainName: `${bucket}.s3.amazonaws.com`,
            RegionalDomainName: `${bucket}.s3.${region}.amazonaws.com`,
          },
        };
      }
      case 'AWS::SecretsManager::Secret': {
        const secretArn = arn('secretsmanager', `secret:${named}-${hash(named, 6)}`);
        return { type, ref: secretArn, attributes: { Id: secretArn } };
      }
      case 'AWS::Events::EventBus': {
        const busName = typeof properties.Name === 'string' ? properties.Name : named;
        return {
          type,
          ref: busName,
          attributes: { Arn: arn('events', `event-bus/${busName}`), Name: busName },
        };
      }
      case 'AWS::Events::Archive':
        return { type, ref: named, attributes: { Arn: arn('events', `archive/${named}`) } };
      case 'AWS::KMS::Key': {
        const keyId = [8, 4, 4, 4, 12]
          .map((length, index) => hash(`${named}${index}`, length))
          .join('-');
        return { type, ref: keyId, attributes: { Arn: arn('kms', `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::Lambda::Function':
        return { type, ref: named, attributes: { Arn: arn('lambda', `function:${named}`) } };
      case 'AWS::Lambda::Url':
        return {
          type,
          ref: named,
          attributes: {
            FunctionUrl: `https://${hash(named, 32)}.lambda-url.${region}.on.aws/`,
            FunctionArn: arn('lambda', `function:${named}`),
          },
        };
      case 'AWS::IAM::Role':
        return {
          type,
          ref: named,
          attributes: { Arn: arn('iam', `role/${named}`, false), RoleId: hash(named, 21) },
        };
      case 'AWS::SNS::Topic':
        return { type, ref: arn('sns', named), attributes: { TopicArn: arn('sns', named) } };
      case 'AWS::Logs::LogGroup':
        return { type, ref: named, attributes: { Arn: arn('logs', `log-group:${named}:*`) } };
      case 'AWS::EC2::EIP':
        return {
          type,
          ref: '192.0.2.1',
          attributes: { PublicIp: '192.0.2.1', AllocationId: `eipalloc-${hash(named, 17)}` },
        };
      default:
        return { type, ref: named, attributes: { Arn: arn('cloudformation', named) } };
    }
  }
}

const isIntrinsic = (key: string): boolean => key === 'Ref' || key.startsWith('Fn::');
