/**
 * A synthesized CloudFormation template read as the deployment it describes: each function with
 * its name, timeout and environment; each event source mapping, queue, table, schedule and
 * function URL with the settings AWS acts on. The local run, the tests and the benchmarks take
 * their wiring from here instead of describing the stack a second time.
 *
 * Only what AWS documents as the resource's behaviour is read, and every value the local run acts
 * on is checked on the way in: a template this module does not understand is refused with the
 * resource and property named, never guessed at.
 */
import * as z from 'zod/mini';

/** A resource as CloudFormation holds it. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
  readonly Condition?: string;
}

/** A template as `cdk synth` writes it. */
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Description?: string }>;
  readonly Parameters?: Record<string, unknown>;
  readonly Conditions?: Record<string, unknown>;
}

/** The template holds something this reader does not understand. */
export class TemplateShapeError extends Error {
  override readonly name = 'TemplateShapeError';
}

const parse = <T>(schema: z.ZodMiniType<T>, value: unknown, where: string): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new TemplateShapeError(
      `${where}: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
    );
  return parsed.data;
};

/** A reference to another resource: `{"Ref": id}` or `{"Fn::GetAtt": [id, attribute]}`. */
const ReferenceSchema = z.union([
  z.strictObject({ Ref: z.string() }),
  z.strictObject({ 'Fn::GetAtt': z.tuple([z.string(), z.string()]) }),
]);

/** The logical id a reference points at. */
export const referencedId = (value: unknown): string | undefined => {
  const parsed = ReferenceSchema.safeParse(value);
  if (!parsed.success) return undefined;
  return 'Ref' in parsed.data ? parsed.data.Ref : parsed.data['Fn::GetAtt'][0];
};

const referenceTo = (value: unknown, where: string): string => {
  const id = referencedId(value);
  if (id === undefined) throw new TemplateShapeError(`${where}: not a reference to a resource`);
  return id;
};

export interface FunctionDefinition {
  readonly logicalId: string;
  /** The construct id of the function: `receive-reports`, `send-messages`, ... */
  readonly name: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** The environment as the template holds it (values may be intrinsics). */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly reservedConcurrency: number | undefined;
  /** The logical id of the function's role. */
  readonly roleId: string | undefined;
  readonly inVpc: boolean;
}

const FunctionSchema = z.looseObject({
  Timeout: z.optional(z.int().check(z.minimum(1), z.maximum(900))),
  MemorySize: z.optional(z.int().check(z.minimum(128), z.maximum(10_240))),
  Environment: z.optional(
    z.looseObject({ Variables: z.optional(z.record(z.string(), z.unknown())) }),
  ),
  ReservedConcurrentExecutions: z.optional(z.int().check(z.minimum(0))),
  Role: z.optional(z.unknown()),
  VpcConfig: z.optional(z.unknown()),
});

export interface EventSourceMappingDefinition {
  readonly logicalId: string;
  readonly functionId: string;
  /** The logical id of the table (a stream) or the queue. */
  readonly sourceId: string;
  readonly kind: 'dynamodb' | 'sqs';
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly bisectOnError: boolean;
  /** Streams: batches of a shard handled at once (`ParallelizationFactor`, Lambda's default 1). */
  readonly parallelizationFactor: number;
  /** -1: retried until the record expires (Lambda's default for streams). */
  readonly maxRetryAttempts: number;
  /** -1: records are never skipped for their age (Lambda's default). */
  readonly maxRecordAgeSeconds: number;
  /** The logical id of the on-failure queue. */
  readonly onFailureQueueId: string | undefined;
  readonly filterCriteria: { readonly Filters?: ReadonlyArray<{ readonly Pattern?: string }> };
  readonly reportBatchItemFailures: boolean;
  /** SQS: the most concurrent invocations (`ScalingConfig.MaximumConcurrency`). */
  readonly maxConcurrency: number | undefined;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST' | undefined;
  readonly enabled: boolean;
}

const MappingSchema = z.looseObject({
  FunctionName: z.unknown(),
  EventSourceArn: z.unknown(),
  BatchSize: z.optional(z.int().check(z.minimum(1), z.maximum(10_000))),
  MaximumBatchingWindowInSeconds: z.optional(z.int().check(z.minimum(0), z.maximum(300))),
  BisectBatchOnFunctionError: z.optional(z.boolean()),
  ParallelizationFactor: z.optional(z.int().check(z.minimum(1), z.maximum(10))),
  MaximumRetryAttempts: z.optional(z.int().check(z.minimum(-1), z.maximum(10_000))),
  MaximumRecordAgeInSeconds: z.optional(z.int().check(z.minimum(-1), z.maximum(604_800))),
  DestinationConfig: z.optional(
    z.looseObject({ OnFailure: z.optional(z.looseObject({ Destination: z.unknown() })) }),
  ),
  FilterCriteria: z.optional(
    z.looseObject({ Filters: z.optional(z.array(z.looseObject({ Pattern: z.string() }))) }),
  ),
  FunctionResponseTypes: z.optional(z.array(z.string())),
  ScalingConfig: z.optional(
    z.looseObject({ MaximumConcurrency: z.int().check(z.minimum(2), z.maximum(1_000)) }),
  ),
  StartingPosition: z.optional(z.enum(['TRIM_HORIZON', 'LATEST'])),
  Enabled: z.optional(z.boolean()),
});

export interface QueueDefinition {
  readonly logicalId: string;
  readonly visibilityTimeoutSeconds: number;
  readonly delaySeconds: number;
  readonly retentionSeconds: number;
  readonly redrive:
    | { readonly deadLetterQueueId: string; readonly maxReceiveCount: number }
    | undefined;
  readonly kmsKeyId: string | undefined;
  readonly fifo: boolean;
}

const QueueSchema = z.looseObject({
  VisibilityTimeout: z.optional(z.int().check(z.minimum(0), z.maximum(43_200))),
  DelaySeconds: z.optional(z.int().check(z.minimum(0), z.maximum(900))),
  MessageRetentionPeriod: z.optional(z.int().check(z.minimum(60), z.maximum(1_209_600))),
  RedrivePolicy: z.optional(
    z.looseObject({
      deadLetterTargetArn: z.unknown(),
      maxReceiveCount: z.int().check(z.minimum(1)),
    }),
  ),
  KmsMasterKeyId: z.optional(z.unknown()),
  FifoQueue: z.optional(z.boolean()),
});

export interface KeyElement {
  readonly AttributeName: string;
  readonly KeyType: 'HASH' | 'RANGE';
}

export interface TableDefinition {
  readonly logicalId: string;
  readonly keySchema: readonly KeyElement[];
  readonly attributes: ReadonlyArray<{
    readonly AttributeName: string;
    readonly AttributeType: 'S' | 'N' | 'B';
  }>;
  readonly indexes: ReadonlyArray<{
    readonly IndexName: string;
    readonly KeySchema: readonly KeyElement[];
  }>;
  readonly streamViewType:
    | 'NEW_IMAGE'
    | 'OLD_IMAGE'
    | 'NEW_AND_OLD_IMAGES'
    | 'KEYS_ONLY'
    | undefined;
  readonly timeToLiveAttribute: string | undefined;
  readonly kmsKeyId: string | undefined;
}

const KeySchema = z.array(
  z.strictObject({ AttributeName: z.string(), KeyType: z.enum(['HASH', 'RANGE']) }),
);

const TableSchema = z.looseObject({
  KeySchema,
  AttributeDefinitions: z.array(
    z.strictObject({ AttributeName: z.string(), AttributeType: z.enum(['S', 'N', 'B']) }),
  ),
  GlobalSecondaryIndexes: z.optional(z.array(z.looseObject({ IndexName: z.string(), KeySchema }))),
  StreamSpecification: z.optional(
    z.looseObject({
      StreamViewType: z.enum(['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY']),
    }),
  ),
  TimeToLiveSpecification: z.optional(
    z.looseObject({ AttributeName: z.optional(z.string()), Enabled: z.boolean() }),
  ),
  Replicas: z.optional(z.array(z.looseObject({ SSESpecification: z.optional(z.unknown()) }))),
  SSESpecification: z.optional(z.looseObject({ KMSMasterKeyId: z.optional(z.unknown()) })),
});

export interface ScheduleDefinition {
  readonly logicalId: string;
  readonly functionId: string;
  readonly expression: string;
  /** The rate in milliseconds (`rate(...)` expressions only). */
  readonly rateMs: number;
  readonly enabled: boolean;
  readonly retryAttempts: number;
  readonly maxEventAgeSeconds: number;
}

const ScheduleSchema = z.looseObject({
  ScheduleExpression: z.string(),
  State: z.optional(z.enum(['ENABLED', 'DISABLED'])),
  Target: z.looseObject({
    Arn: z.unknown(),
    RetryPolicy: z.optional(
      z.looseObject({
        MaximumRetryAttempts: z.optional(z.int().check(z.minimum(0), z.maximum(185))),
        MaximumEventAgeInSeconds: z.optional(z.int().check(z.minimum(60), z.maximum(86_400))),
      }),
    ),
  }),
});

/** Lambda's asynchronous-invocation settings of a function (`AWS::Lambda::EventInvokeConfig`). */
export interface AsyncInvokeDefinition {
  readonly functionId: string;
  readonly retryAttempts: number;
  readonly maxEventAgeSeconds: number;
}

const InvokeConfigSchema = z.looseObject({
  FunctionName: z.unknown(),
  MaximumRetryAttempts: z.optional(z.int().check(z.minimum(0), z.maximum(2))),
  MaximumEventAgeInSeconds: z.optional(z.int().check(z.minimum(60), z.maximum(21_600))),
});

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const UNIT_MS: Record<string, number> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** The period of a `rate(value unit)` schedule expression, as EventBridge Scheduler reads it. */
export const rateMilliseconds = (expression: string): number => {
  const match = RATE.exec(expression);
  if (!match) throw new TemplateShapeError(`schedule expression ${expression}: not a rate(...)`);
  const value = Number(match[1]);
  const unit = match[2] ?? '';
  if (value < 1 || (value === 1) !== !unit.endsWith('s'))
    throw new TemplateShapeError(
      `schedule expression ${expression}: rate(1 ${unit.replace(/s$/, '')}) or rate(N ${unit.replace(/s?$/, 's')})`,
    );
  return value * (UNIT_MS[unit] ?? 0);
};

/** The template's resources of `type`, by logical id. */
export const resourcesOfType = (
  template: CfnTemplate,
  type: string,
): Array<[string, CfnResource]> =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The construct id a resource's path metadata names (`.../receive-reports/Resource`). */
const constructId = (resource: CfnResource): string | undefined => {
  const path = resource.Metadata?.['aws:cdk:path'];
  if (typeof path !== 'string') return undefined;
  const parts = path.split('/');
  return parts.at(-1) === 'Resource' ? parts.at(-2) : parts.at(-1);
};

/** A deployment's wiring, read from its template. */
export class StackTemplate {
  constructor(readonly template: CfnTemplate) {}

  resource(logicalId: string): CfnResource {
    const found = this.template.Resources[logicalId];
    if (!found) throw new TemplateShapeError(`no resource ${logicalId}`);
    return found;
  }

  /**
   * A resource's construct path below the stack's `MsgBridge` (`send-pipeline/send-queue`,
   * `webhook-secret/secret`), from its path metadata; its logical id when it has none.
   */
  constructPath(logicalId: string): string {
    const path = this.resource(logicalId).Metadata?.['aws:cdk:path'];
    if (typeof path !== 'string') return logicalId;
    const parts = path.split('/').slice(2);
    return (parts.at(-1) === 'Resource' ? parts.slice(0, -1) : parts).join('/');
  }

  functions(): FunctionDefinition[] {
    return resourcesOfType(this.template, 'AWS::Lambda::Function').map(([logicalId, resource]) => {
      const properties = parse(FunctionSchema, resource.Properties ?? {}, logicalId);
      const name = constructId(resource);
      if (name === undefined)
        throw new TemplateShapeError(
          `${logicalId}: no aws:cdk:path metadata (synthesize with aws:cdk:enable-path-metadata)`,
        );
      return {
        logicalId,
        name,
        // Lambda's defaults: 3 seconds, 128 MB.
        timeoutSeconds: properties.Timeout ?? 3,
        memoryMb: properties.MemorySize ?? 128,
        environment: properties.Environment?.Variables ?? {},
        reservedConcurrency: properties.ReservedConcurrentExecutions,
        roleId: properties.Role === undefined ? undefined : referencedId(properties.Role),
        inVpc: properties.VpcConfig !== undefined,
      };
    });
  }

  /** The function of that construct id (`send-messages`). */
  functionNamed(name: string): FunctionDefinition {
    const found = this.functions().find((fn) => fn.name === name);
    if (!found) throw new TemplateShapeError(`the template has no function ${name}`);
    return found;
  }

  eventSourceMappings(): EventSourceMappingDefinition[] {
    return resourcesOfType(this.template, 'AWS::Lambda::EventSourceMapping').map(
      ([logicalId, resource]) => {
        const properties = parse(MappingSchema, resource.Properties ?? {}, logicalId);
        const sourceId = referenceTo(properties.EventSourceArn, `${logicalId}.EventSourceArn`);
        const sourceType = this.resource(sourceId).Type;
        const kind =
          sourceType === 'AWS::SQS::Queue'
            ? 'sqs'
            : sourceType === 'AWS::DynamoDB::GlobalTable' || sourceType === 'AWS::DynamoDB::Table'
              ? 'dynamodb'
              : undefined;
        if (kind === undefined)
          throw new TemplateShapeError(`${logicalId}: an event source of type ${sourceType}`);
        const onFailure = properties.DestinationConfig?.OnFailure?.Destination;
        return {
          logicalId,
          functionId: referenceTo(properties.FunctionName, `${logicalId}.FunctionName`),
          sourceId,
          kind,
          // Lambda's defaults: 100 records from a stream, 10 messages from a queue.
          batchSize: properties.BatchSize ?? (kind === 'sqs' ? 10 : 100),
          maxBatchingWindowSeconds: properties.MaximumBatchingWindowInSeconds ?? 0,
          bisectOnError: properties.BisectBatchOnFunctionError ?? false,
          parallelizationFactor: properties.ParallelizationFactor ?? 1,
          maxRetryAttempts: properties.MaximumRetryAttempts ?? -1,
          maxRecordAgeSeconds: properties.MaximumRecordAgeInSeconds ?? -1,
          onFailureQueueId:
            onFailure === undefined
              ? undefined
              : referenceTo(onFailure, `${logicalId}.DestinationConfig.OnFailure.Destination`),
          filterCriteria: properties.FilterCriteria ?? {},
          reportBatchItemFailures: (properties.FunctionResponseTypes ?? []).includes(
            'ReportBatchItemFailures',
          ),
          maxConcurrency: properties.ScalingConfig?.MaximumConcurrency,
          startingPosition: properties.StartingPosition,
          enabled: properties.Enabled ?? true,
        };
      },
    );
  }

  queues(): QueueDefinition[] {
    return resourcesOfType(this.template, 'AWS::SQS::Queue').map(([logicalId, resource]) => {
      const properties = parse(QueueSchema, resource.Properties ?? {}, logicalId);
      const redrive = properties.RedrivePolicy;
      return {
        logicalId,
        // SQS's defaults: 30 s visible, no delay, kept 4 days.
        visibilityTimeoutSeconds: properties.VisibilityTimeout ?? 30,
        delaySeconds: properties.DelaySeconds ?? 0,
        retentionSeconds: properties.MessageRetentionPeriod ?? 345_600,
        redrive:
          redrive === undefined
            ? undefined
            : {
                deadLetterQueueId: referenceTo(
                  redrive.deadLetterTargetArn,
                  `${logicalId}.RedrivePolicy.deadLetterTargetArn`,
                ),
                maxReceiveCount: redrive.maxReceiveCount,
              },
        kmsKeyId:
          properties.KmsMasterKeyId === undefined
            ? undefined
            : referencedId(properties.KmsMasterKeyId),
        fifo: properties.FifoQueue ?? false,
      };
    });
  }

  queue(logicalId: string): QueueDefinition {
    const found = this.queues().find((queue) => queue.logicalId === logicalId);
    if (!found) throw new TemplateShapeError(`no queue ${logicalId}`);
    return found;
  }

  tables(): TableDefinition[] {
    return [
      ...resourcesOfType(this.template, 'AWS::DynamoDB::GlobalTable'),
      ...resourcesOfType(this.template, 'AWS::DynamoDB::Table'),
    ].map(([logicalId, resource]) => {
      const properties = parse(TableSchema, resource.Properties ?? {}, logicalId);
      const sse =
        (properties.Replicas?.[0]?.SSESpecification as { KMSMasterKeyId?: unknown } | undefined) ??
        properties.SSESpecification;
      return {
        logicalId,
        keySchema: properties.KeySchema,
        attributes: properties.AttributeDefinitions,
        indexes: (properties.GlobalSecondaryIndexes ?? []).map((index) => ({
          IndexName: index.IndexName,
          KeySchema: index.KeySchema,
        })),
        streamViewType: properties.StreamSpecification?.StreamViewType,
        timeToLiveAttribute: properties.TimeToLiveSpecification?.Enabled
          ? properties.TimeToLiveSpecification.AttributeName
          : undefined,
        kmsKeyId: sse?.KMSMasterKeyId === undefined ? undefined : referencedId(sse.KMSMasterKeyId),
      };
    });
  }

  schedules(): ScheduleDefinition[] {
    return resourcesOfType(this.template, 'AWS::Scheduler::Schedule').map(
      ([logicalId, resource]) => {
        const properties = parse(ScheduleSchema, resource.Properties ?? {}, logicalId);
        const retry = properties.Target.RetryPolicy;
        return {
          logicalId,
          functionId: referenceTo(properties.Target.Arn, `${logicalId}.Target.Arn`),
          expression: properties.ScheduleExpression,
          rateMs: rateMilliseconds(properties.ScheduleExpression),
          enabled: (properties.State ?? 'ENABLED') === 'ENABLED',
          // EventBridge Scheduler's defaults: 185 retries within 24 hours.
          retryAttempts: retry?.MaximumRetryAttempts ?? 185,
          maxEventAgeSeconds: retry?.MaximumEventAgeInSeconds ?? 86_400,
        };
      },
    );
  }

  asyncInvokeConfigs(): AsyncInvokeDefinition[] {
    return resourcesOfType(this.template, 'AWS::Lambda::EventInvokeConfig').map(
      ([logicalId, resource]) => {
        const properties = parse(InvokeConfigSchema, resource.Properties ?? {}, logicalId);
        return {
          functionId: referenceTo(properties.FunctionName, `${logicalId}.FunctionName`),
          // Lambda's defaults: 2 retries, 6 hours.
          retryAttempts: properties.MaximumRetryAttempts ?? 2,
          maxEventAgeSeconds: properties.MaximumEventAgeInSeconds ?? 21_600,
        };
      },
    );
  }

  /** The logical ids of the functions that have a function URL. */
  functionUrlTargets(): string[] {
    return resourcesOfType(this.template, 'AWS::Lambda::Url').map(([logicalId, resource]) =>
      referenceTo(resource.Properties?.TargetFunctionArn, `${logicalId}.TargetFunctionArn`),
    );
  }

  bucketIds(): string[] {
    return resourcesOfType(this.template, 'AWS::S3::Bucket').map(([id]) => id);
  }

  secretIds(): string[] {
    return resourcesOfType(this.template, 'AWS::SecretsManager::Secret').map(([id]) => id);
  }

  eventBusIds(): string[] {
    return resourcesOfType(this.template, 'AWS::Events::EventBus').map(([id]) => id);
  }
}
