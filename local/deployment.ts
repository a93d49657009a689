/**
 * The synthesized stack deployed onto the local servers: its tables in DynamoDB Local, its
 * queues and buckets in fauxqs, its secrets and bus in the local JSON services, every function
 * composed as its Lambda entry composes it on the environment the template sets, and the wiring
 * AWS would run from the template: each event source mapping (with its filter, batch size,
 * batching window, retries, bisection, maximum record age and on-failure destination), each
 * schedule (with its rate and retries) and each function's timeout.
 *
 * The only values the local run puts in place of the template's are where the outside world is:
 * the gateway's URLs point at the simulator (`substitutions`), and each resource is at its local
 * endpoint under the name the deployment model gives it.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FauxqsServer } from 'fauxqs';
import {
  type StackTemplate,
  TemplateShapeError,
} from '../aws-semantics/cloudformation-template.ts';
import { compileFilterCriteria } from '../aws-semantics/lambda-event-filter.ts';
import { streamInvocationRecord } from './aws/event-source-failures.ts';
import type { LocalBusTarget, LocalJsonServices } from './aws/json-services.ts';
import { type InvocationWrapper, type LocalFunction, localFunction } from './aws/lambda-runtime.ts';
import { type LocalScheduler, startScheduler } from './aws/scheduler.ts';
import { type SqsEventSource, startSqsEventSource } from './aws/sqs-event-source.ts';
import {
  compositionOf,
  type FunctionOverrides,
  isDeployTimeFunction,
  recordingEnvironment,
} from './stack/compositions.ts';
import { type DeploymentEnvironment, DeploymentModel } from './stack/deployment-model.ts';
import type { StreamCheckpoints } from './stream-checkpoints.ts';
import { type StreamPoller, startStreamPoller } from './stream-poller.ts';
import { ensureTable } from './tables.ts';

/** The SDK clients one function is given: each of its calls is recorded under its name. */
export interface FunctionClients {
  readonly dynamodb: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly streams: DynamoDBStreamsClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly secrets: SecretsManagerClient;
  readonly eventBridge: EventBridgeClient;
}

export interface LocalDeploymentOptions {
  readonly stack: StackTemplate;
  readonly environment: DeploymentEnvironment;
  /** The harness's own DynamoDB client (tables are created with it). */
  readonly dynamodb: DynamoDBClient;
  readonly fauxqs: FauxqsServer;
  readonly services: LocalJsonServices;
  /** Where events put on the stack's bus go. */
  readonly bus: LocalBusTarget;
  /** A secret's value by its construct path (`webhook-secret/secret`); others get a random string. */
  readonly secretValue: (constructId: string) => string | undefined;
  /** Environment variables whose local value is another (the gateway's URLs: the simulator). */
  readonly substitutions: Readonly<Record<string, string>>;
  /** The clients of one function. */
  readonly clientsFor: (functionName: string) => FunctionClients;
  /** What a caller adds to a function's composition (a logger, a wrapped store, a clock). */
  readonly overridesFor?: (functionName: string) => Partial<FunctionOverrides>;
  /** Wraps every invocation (the fault-injection run kills some). */
  readonly wrapInvocation?: InvocationWrapper;
  /**
   * Where each stream event source resumes (see `StreamPollerOptions.checkpoints`), as Lambda's
   * mapping resumes after a deployment: by the function, its stream, and the state table's name.
   */
  readonly streamCheckpoints?: (where: {
    readonly functionName: string;
    readonly streamArn: string;
    readonly stateTable: string;
  }) => StreamCheckpoints;

  /** Run the schedules (the scheduled functions can always be invoked by name). @default true */
  readonly runSchedules?: boolean;
  readonly onError: (what: string, error: unknown) => void;
}

export interface LocalDeployment {
  /** The deployment as run here: local queue URLs and stream ARNs in place of AWS's. */
  readonly model: DeploymentModel;
  /** The same stack as AWS names it in the target account: its ARNs, for IAM. */
  readonly deployed: DeploymentModel;
  readonly functions: ReadonlyMap<string, LocalFunction>;
  /** Each stream event source by its function's name. */
  readonly streamSources: ReadonlyMap<string, StreamPoller>;
  /** Each queue event source by its function's name. */
  readonly queueSources: ReadonlyMap<string, SqsEventSource>;
  readonly scheduler: LocalScheduler;
  /** A function by name; throws when the stack has none of that name. */
  fn(name: string): LocalFunction;
  /** The local URL and name of a queue, by its construct path (`send-pipeline/send-queue`). */
  queue(constructId: string): { readonly url: string; readonly arn: string; readonly name: string };
  /** The name of a table, bucket or bus, by its construct path (`event-table`). */
  named(constructId: string): string;
  /** A secret's ARN by its construct path (`webhook-secret/secret`, `gateway-credentials`). */
  secretArn(constructId: string): string;
  /** Every resource's physical id here by its logical id (what ListStackResources lists). */
  physicalIds(): Record<string, string>;
  /**
   * The event source mappings and schedules as Lambda's GetEventSourceMapping and Scheduler's
   * GetSchedule describe them: `State`, and a mapping's `LastProcessingResult`.
   */
  status(): DeploymentStatus;
  stop(): Promise<void>;
}

export interface DeploymentStatus {
  readonly mappings: ReadonlyArray<{
    readonly logicalId: string;
    readonly functionName: string;
    readonly state: 'Enabled' | 'Disabled';
    readonly lastProcessingResult: string;
  }>;
  readonly schedules: ReadonlyArray<{
    readonly logicalId: string;
    readonly functionName: string;
    readonly state: 'ENABLED' | 'DISABLED';
  }>;
}

const TABLE_TYPES = ['AWS::DynamoDB::GlobalTable', 'AWS::DynamoDB::Table'];

export const deployLocally = async (options: LocalDeploymentOptions): Promise<LocalDeployment> => {
  const { stack, fauxqs, services } = options;
  const region = options.environment.region;

  // Queues first: each dead-letter queue before the queue whose redrive policy names it.
  const queues = stack.queues();
  const created = new Map<string, { url: string; arn: string; name: string }>();
  const base = new DeploymentModel(stack, options.environment);
  const createQueue = (logicalId: string): { url: string; arn: string; name: string } => {
    const existing = created.get(logicalId);
    if (existing) return existing;
    const queue = stack.queue(logicalId);
    const name = base.physical(logicalId).attributes.QueueName ?? logicalId;
    const dlq = queue.redrive ? createQueue(queue.redrive.deadLetterQueueId) : undefined;
    const made = fauxqs.createQueue(name, {
      attributes: {
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        DelaySeconds: String(queue.delaySeconds),
        MessageRetentionPeriod: String(queue.retentionSeconds),
        ...(dlq && queue.redrive
          ? {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: dlq.arn,
                maxReceiveCount: queue.redrive.maxReceiveCount,
              }),
            }
          : {}),
      },
    });
    const entry = { url: made.queueUrl, arn: made.queueArn, name };
    created.set(logicalId, entry);
    return entry;
  };
  for (const queue of queues) createQueue(queue.logicalId);

  // Tables, kept across restarts when DynamoDB Local persists them.
  const streamArns = new Map<string, string>();
  for (const table of stack.tables()) {
    const description = await ensureTable(options.dynamodb, {
      tableName: base.physical(table.logicalId).ref,
      keySchema: table.keySchema,
      attributes: table.attributes,
      indexes: table.indexes,
      streamViewType: table.streamViewType,
      timeToLiveAttribute: table.timeToLiveAttribute,
    });
    if (description.LatestStreamArn) streamArns.set(table.logicalId, description.LatestStreamArn);
  }

  // The model with the local endpoints in place of AWS's.
  const model = new DeploymentModel(
    stack,
    options.environment,
    (logicalId): { ref?: string; attributes?: Record<string, string> } => {
      const queue = created.get(logicalId);
      if (queue) return { ref: queue.url, attributes: { QueueUrl: queue.url, Arn: queue.arn } };
      const streamArn = streamArns.get(logicalId);
      if (streamArn) return { attributes: { StreamArn: streamArn } };
      return {};
    },
  );

  for (const bucketId of stack.bucketIds()) fauxqs.createBucket(model.physical(bucketId).ref);
  for (const secretId of stack.secretIds()) {
    const properties = stack.resource(secretId).Properties ?? {};
    const arn = model.physical(secretId).ref;
    services.addSecret({
      arn,
      name: arn.replace(/^.*:secret:/, '').replace(/-[0-9a-f]{6}$/, ''),
      value:
        options.secretValue(stack.constructPath(secretId)) ??
        // What GenerateSecretString leaves: a random string, never the value a reader wants.
        randomBytes(24).toString('base64url'),
      ...(typeof properties.Description === 'string'
        ? { description: properties.Description }
        : {}),
    });
  }
  for (const busId of stack.eventBusIds()) {
    const bus = model.physical(busId);
    services.addBus(bus.ref, bus.attributes.Arn ?? bus.ref, options.bus);
  }

  // Every function, composed on its template environment.
  const functions = new Map<string, LocalFunction>();
  const byLogicalId = new Map<string, LocalFunction>();
  for (const definition of stack.functions()) {
    const path = stack.resource(definition.logicalId).Metadata?.['aws:cdk:path'];
    if (isDeployTimeFunction(typeof path === 'string' ? path : undefined)) continue;
    const variables = Object.fromEntries(
      Object.entries(definition.environment).map(([name, value]) => [
        name,
        options.substitutions[name] ?? model.resolveString(value, `${definition.name}.${name}`),
      ]),
    );
    // One composition per execution environment, each with its own clients, as each Lambda
    // sandbox creates its own.
    const compose = () => {
      const clients = options.clientsFor(definition.name);
      const { env, read } = recordingEnvironment(variables);
      const composed = compositionOf(definition.name)(env, {
        documents: clients.documents,
        s3: clients.s3,
        sqs: clients.sqs,
        secrets: clients.secrets,
        eventBridge: clients.eventBridge,
        ...options.overridesFor?.(definition.name),
      } as FunctionOverrides);
      return { composed, read };
    };
    const physical = model.physical(definition.logicalId);
    const fn = localFunction(
      {
        name: definition.name,
        functionName: physical.ref,
        functionArn: physical.attributes.Arn ?? physical.ref,
        timeoutSeconds: definition.timeoutSeconds,
        memoryMb: definition.memoryMb,
      },
      compose,
      options.wrapInvocation,
    );
    functions.set(definition.name, fn);
    byLogicalId.set(definition.logicalId, fn);
  }
  const fnOf = (logicalId: string): LocalFunction => {
    const found = byLogicalId.get(logicalId);
    if (!found) throw new TemplateShapeError(`no local function for ${logicalId}`);
    return found;
  };

  const byConstructId = (constructId: string, types: readonly string[]): string => {
    const found = Object.entries(stack.template.Resources).find(
      ([logicalId, resource]) =>
        types.includes(resource.Type) && stack.constructPath(logicalId) === constructId,
    );
    if (!found) throw new TemplateShapeError(`the stack has no ${types.join('/')} ${constructId}`);
    return found[0];
  };

  // Event source mappings, as Lambda polls them with the function's role.
  const streamSources = new Map<string, StreamPoller>();
  const queueSources = new Map<string, SqsEventSource>();
  for (const mapping of stack.eventSourceMappings()) {
    if (!mapping.enabled) continue;
    const fn = fnOf(mapping.functionId);
    const clients = options.clientsFor(fn.name);
    if (mapping.kind === 'sqs') {
      const queue = created.get(mapping.sourceId);
      if (!queue)
        throw new TemplateShapeError(`${mapping.logicalId}: no queue ${mapping.sourceId}`);
      queueSources.set(
        fn.name,
        startSqsEventSource({
          sqs: clients.sqs,
          queueUrl: queue.url,
          queueArn: queue.arn,
          region,
          mapping,
          filter: compileFilterCriteria(mapping.filterCriteria, 'sqs'),
          invoke: (event) => fn.invoke(event),
          onError: (error) => options.onError(fn.name, error),
        }),
      );
      continue;
    }
    const streamArn = streamArns.get(mapping.sourceId);
    if (!streamArn) throw new TemplateShapeError(`${mapping.logicalId}: the table has no stream`);
    const onFailureQueue =
      mapping.onFailureQueueId === undefined ? undefined : created.get(mapping.onFailureQueueId);
    const partitionKey = stack
      .tables()
      .find((table) => table.logicalId === mapping.sourceId)
      ?.keySchema.find((element) => element.KeyType === 'HASH')?.AttributeName;
    const checkpoints = options.streamCheckpoints?.({
      functionName: fn.name,
      streamArn,
      stateTable: model.physical(byConstructId('state-table', TABLE_TYPES)).ref,
    });
    streamSources.set(
      fn.name,
      startStreamPoller({
        streamsClient: clients.streams,
        streamArn,
        filter: compileFilterCriteria(mapping.filterCriteria, 'dynamodb'),
        handler: (event) => fn.invoke(event) as never,
        batchSize: mapping.batchSize,
        bisectOnError: mapping.bisectOnError,
        parallelizationFactor: mapping.parallelizationFactor,
        ...(partitionKey === undefined ? {} : { partitionKeyAttribute: partitionKey }),
        maxRetries: mapping.maxRetryAttempts,
        maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
        startingPosition: mapping.startingPosition ?? 'TRIM_HORIZON',
        pollIntervalMs: 100,
        ...(checkpoints
          ? {
              checkpoints: await checkpoints.load(),
              onCheckpoint: (shard, sequence) => checkpoints.save(shard, sequence),
            }
          : {}),
        onFailure: async (records, error, details) => {
          options.onError(fn.name, error);
          if (!onFailureQueue) return;
          // Lambda sends the destination a pointer to the records, with the function's role.
          await clients.sqs.send(
            new SendMessageCommand({
              QueueUrl: onFailureQueue.url,
              MessageBody: JSON.stringify(
                streamInvocationRecord({
                  records,
                  shardId: details.shardId,
                  streamArn,
                  functionArn: fn.functionArn,
                  condition: details.condition,
                  attempts: details.attempts,
                }),
              ),
            }),
          );
        },
      }),
    );
  }

  // Schedules, with the function's asynchronous-invocation settings.
  const asyncConfigs = stack.asyncInvokeConfigs();
  const scheduled = stack.schedules().map((schedule) => {
    const fn = fnOf(schedule.functionId);
    return {
      schedule,
      asyncInvoke: asyncConfigs.find((config) => config.functionId === schedule.functionId),
      invoke: (event: unknown) => fn.invoke(event),
      name: fn.name,
    };
  });
  const scheduler = startScheduler(options.runSchedules === false ? [] : scheduled, (name, error) =>
    options.onError(name, error),
  );

  return {
    model,
    deployed: base,
    functions,
    streamSources,
    queueSources,
    scheduler,
    fn: (name) => {
      const found = functions.get(name);
      if (!found) throw new TemplateShapeError(`the stack has no function ${name}`);
      return found;
    },
    queue: (constructId) => {
      const logicalId = byConstructId(constructId, ['AWS::SQS::Queue']);
      const queue = created.get(logicalId);
      if (!queue) throw new TemplateShapeError(`queue ${constructId} was not created`);
      return queue;
    },
    named: (constructId) =>
      model.physical(
        byConstructId(constructId, [...TABLE_TYPES, 'AWS::S3::Bucket', 'AWS::Events::EventBus']),
      ).ref,
    secretArn: (constructId) =>
      model.physical(byConstructId(constructId, ['AWS::SecretsManager::Secret'])).ref,
    physicalIds: () =>
      Object.fromEntries(
        Object.keys(stack.template.Resources).map((logicalId) => [
          logicalId,
          model.physical(logicalId).ref,
        ]),
      ),
    status: () => ({
      mappings: stack.eventSourceMappings().map((mapping) => {
        const fn = fnOf(mapping.functionId);
        const fatal = streamSources.get(fn.name)?.stats.fatalError;
        return {
          logicalId: mapping.logicalId,
          functionName: fn.name,
          state: mapping.enabled ? ('Enabled' as const) : ('Disabled' as const),
          lastProcessingResult: fatal ? `PROBLEM: ${fatal.message}` : 'OK',
        };
      }),
      schedules: stack.schedules().map((schedule) => ({
        logicalId: schedule.logicalId,
        functionName: fnOf(schedule.functionId).name,
        state:
          schedule.enabled && options.runSchedules !== false
            ? ('ENABLED' as const)
            : ('DISABLED' as const),
      })),
    }),
    stop: async () => {
      await scheduler.stop();
      await Promise.all([...streamSources.values()].map((source) => source.stop()));
      await Promise.all([...queueSources.values()].map((source) => source.stop()));
    },
  };
};
