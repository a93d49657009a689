import { join, resolve } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { stateTableTokenProvider } from '../functions/gateway-access/adapters/state-table-token-provider.ts';
import { GatewayCredentialsSchema } from '../functions/gateway-access/gateway-credentials.ts';
import { GatewayClient } from '../gateway/client.ts';
import { GatewayManagementClient } from '../gateway/management/messenger-client.ts';
import { GatewayRcsManagementClient } from '../gateway/management/rcs-client.ts';
import type { RcsPortalCredentials } from '../gateway/schemas/rcs-management.ts';
import { type GatewayHosts, GatewayHostsSchema } from '../gateway/settings.ts';
import { GatewayAuthApi, type GatewayCredentials } from '../gateway/token-api.ts';
import {
  BRIDGE_FILE,
  type BridgeFile,
  BridgeFileSchema,
  NOT_RUNNING,
  whyNotRunning,
} from './bridge-file.ts';
import { OperationError } from './errors.ts';

/*
 * Where a command runs: the local run (`--local [DIR]`, the default) or a deployed stack
 * (`--stack NAME [--region R]`). Either way the gateway token is the shared one in the state
 * table, through the same provider the Lambdas use.
 */

/** The gateway clients of a target, built on the shared token. */
export interface GatewayClients {
  /** Spec 01: sending, reports, tracking URLs (bearer token). */
  readonly messaging: GatewayClient;
  /** Spec 02: messenger channels, templates, statistics. */
  readonly management: GatewayManagementClient;
  /** Spec 03: the brand endpoints also need the brand portal account (`apiId`/`apiSecret`). */
  rcs(portal?: RcsPortalCredentials): GatewayRcsManagementClient;
  /**
   * Spec 01 opt-out endpoints, which authenticate with the `apiKey` header: reads the gateway
   * credentials (on a stack, the Secrets Manager secret).
   */
  optOut(): Promise<GatewayClient>;
}

export type TargetEvents =
  | {
      readonly kind: 'local';
      /** The JSON-lines file the local bus appends every event to. */
      readonly file: string;
      /** The running bridge's loopback-only replay route, and the token it requires. */
      readonly replayUrl: string;
      readonly controlToken: string;
      /** The local EventBridge endpoint's client, and the stack's bus on it. */
      readonly client: EventBridgeClient;
      readonly busName: string;
      /** The publisher's on-failure queue, as deployed. */
      readonly onFailureQueueUrl: string;
      readonly streams: DynamoDBStreamsClient;
    }
  | {
      readonly kind: 'stack';
      readonly client: EventBridgeClient;
      readonly busName: string;
      readonly busArn: string;
      readonly archiveArn: string;
      /** Outputs of newer stacks, for `events republish`; undefined on older ones. */
      readonly onFailureQueueUrl: string | undefined;
      readonly eventSource: string | undefined;
      readonly streams: DynamoDBStreamsClient;
    };

/** Where a target came from: what `doctor` reads beyond the commands' common parts. */
export type TargetOrigin =
  | { readonly kind: 'local'; readonly dir: string; readonly bridge: BridgeFile }
  | { readonly kind: 'stack'; readonly name: string; readonly region: string | undefined };

export interface Target {
  readonly kind: 'local' | 'stack';
  /** Set by `resolveTarget`; targets made by hand in tests may leave it out. */
  readonly origin?: TargetOrigin;
  /** One line naming the target, without any secret: `local run at .local` / `stack X (region)`. */
  describe(): string;
  /** The gateway clients, built on first use. */
  gateway(): GatewayClients;
  readonly sqs: SQSClient;
  readonly queues: { readonly send: string; readonly dlq: string };
  readonly events: TargetEvents;
  readonly tables: { readonly events: string; readonly state: string };
  readonly documents: DynamoDBDocumentClient;
}

export interface TargetOptions {
  /**
   * `--local [DIR]`; the default target when `stack` is not given. Empty (a bare `--local`): the
   * default directory.
   */
  readonly local?: string;
  readonly stack?: string;
  readonly region?: string;
}

/** AWS clients for a deployed stack; given, they are used instead of new ones (tests). */
export interface AwsClients {
  readonly cloudFormation?: CloudFormationClient;
  readonly lambda?: LambdaClient;
  readonly cloudWatch?: CloudWatchClient;
  readonly scheduler?: SchedulerClient;
  readonly sqs?: SQSClient;
  readonly eventBridge?: EventBridgeClient;
  readonly dynamodb?: DynamoDBClient;
  readonly dynamodbStreams?: DynamoDBStreamsClient;
  readonly secretsManager?: SecretsManagerClient;
  readonly serviceQuotas?: ServiceQuotasClient;
  readonly ec2?: EC2Client;
}

export interface TargetDeps {
  readonly readFile: (path: string) => Promise<string>;
  readonly aws?: AwsClients;
  /**
   * Why the local run a `bridge.json` describes is not running, or `undefined` when it answers.
   * @default asks its process and its servers (`whyNotRunning` in ops/bridge-file.ts)
   */
  readonly whyNotRunning?: (bridge: BridgeFile) => Promise<string | undefined>;
  /**
   * `LOCAL_DATA_DIR` as the environment sets it: where `npm start` and `npm run demo` keep the
   * local run, so the default of `--local` too.
   * @default {@link DEFAULT_LOCAL_DIR}
   */
  readonly localDataDir?: string;
}

export const DEFAULT_LOCAL_DIR = '.local';

/** How to reach a run that is not where the CLI looked; part of every "not running" message. */
export const ELSEWHERE_HINT =
  'for a run on another data directory pass --local DIR or set LOCAL_DATA_DIR=DIR as for npm start; for a deployed stack, --stack NAME';

/** The stack outputs the CLI needs (logical ids). */
export const REQUIRED_OUTPUTS = [
  'StateTableName',
  'EventTableName',
  'GatewayCredentialsArn',
  'GatewayHosts',
  'SendQueueUrl',
  'SendDlqUrl',
  'EventBusName',
  'EventBusArn',
  'EventArchiveArn',
] as const;
type OutputName = (typeof REQUIRED_OUTPUTS)[number];
/** Outputs a command may use when the stack has them (added after REQUIRED_OUTPUTS). */
export const OPTIONAL_OUTPUTS = ['PublisherOnFailureQueueUrl', 'EventSource'] as const;
type OptionalOutputName = (typeof OPTIONAL_OUTPUTS)[number];

// The token provider never logs a token; its informational lines are not for the CLI's output.
const SILENT = new Logger({ logLevel: 'SILENT' });

/** Resolves `--local`/`--stack` to a {@link Target}. Usage conflicts are {@link OperationError}s. */
export const resolveTarget = async (options: TargetOptions, deps: TargetDeps): Promise<Target> => {
  if (options.stack !== undefined) {
    if (options.local !== undefined)
      throw new OperationError('give either --local or --stack, not both');
    return stackTarget(options.stack, options.region, deps);
  }
  if (options.region !== undefined) throw new OperationError('--region goes with --stack NAME');
  if (options.local !== undefined && options.local !== '') return localTarget(options.local, deps);
  // The CLI follows LOCAL_DATA_DIR as `npm start` and `npm run demo` do: a run started with it is
  // found without repeating the directory.
  const fromEnvironment = deps.localDataDir;
  return fromEnvironment === undefined || fromEnvironment === ''
    ? localTarget(DEFAULT_LOCAL_DIR, deps)
    : localTarget(fromEnvironment, deps, true);
};

interface ClientParts {
  readonly hosts: GatewayHosts;
  readonly stateTable: string;
  readonly documents: DynamoDBDocumentClient;
  readonly credentials: () => Promise<GatewayCredentials>;
}

/** The clients of `gatewayFromEnvironment`, from a target's parts instead of a Lambda's environment. */
const gatewayClients = (parts: ClientParts): GatewayClients => {
  const auth = new GatewayAuthApi({ hosts: parts.hosts });
  const tokens = stateTableTokenProvider(parts.stateTable, {
    auth,
    credentials: parts.credentials,
    logger: SILENT,
    client: parts.documents,
  });
  const hosts = parts.hosts;
  return {
    messaging: new GatewayClient({ hosts, tokens }),
    management: new GatewayManagementClient({ hosts, tokens }),
    rcs: (portal) => new GatewayRcsManagementClient({ hosts, tokens, portal }),
    optOut: async () => {
      const { apiKey } = await parts.credentials();
      return new GatewayClient({ hosts, tokens, apiKey });
    },
  };
};

const once = <T>(build: () => T): (() => T) => {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
};

const documentClient = (client: DynamoDBClient) =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

const localTarget = async (
  dir: string,
  deps: TargetDeps,
  fromEnvironment = false,
): Promise<Target> => {
  const path = join(dir, BRIDGE_FILE);
  let text: string;
  try {
    text = await deps.readFile(path);
  } catch {
    throw new OperationError(
      `${NOT_RUNNING} (${path}${fromEnvironment ? ', from LOCAL_DATA_DIR' : ''}: no such file); ${ELSEWHERE_HINT}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OperationError(
      `${path} is not JSON (${(error as Error).message}); restart \`npm start\``,
    );
  }
  const parsed = BridgeFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}`);
    throw new OperationError(
      `${path} does not describe a local run this msgbridge can use (${[...new Set(problems)].join(', ')}); restart \`npm start\` to rewrite it`,
    );
  }
  const bridge: BridgeFile = parsed.data;
  // A file left by a run that stopped would otherwise end in connection errors from the SDK.
  const stale = await (deps.whyNotRunning ?? whyNotRunning)(bridge);
  if (stale !== undefined) throw new OperationError(`${NOT_RUNNING} (${path}: ${stale})`);
  const aws = { region: bridge.region, credentials: bridge.credentials };
  const documents = documentClient(new DynamoDBClient({ ...aws, endpoint: bridge.dynamodb }));
  const credentials = { apiKey: bridge.apiKey, apiPassword: bridge.apiPassword };
  return {
    kind: 'local',
    origin: { kind: 'local', dir, bridge },
    describe: () => `local run at ${resolve(dir)} (gateway simulator ${bridge.simulator})`,
    gateway: once(() =>
      gatewayClients({
        hosts: bridge.gatewayHosts,
        stateTable: bridge.tables.state,
        documents,
        credentials: async () => credentials,
      }),
    ),
    sqs: new SQSClient({ ...aws, endpoint: bridge.sqs }),
    queues: { send: bridge.sendQueue, dlq: bridge.sendDlq },
    events: {
      kind: 'local',
      file: bridge.eventsFile,
      replayUrl: `${bridge.webhooks}/_bridge/replay`,
      controlToken: bridge.controlToken,
      client: new EventBridgeClient({ ...aws, endpoint: bridge.services }),
      busName: bridge.eventBusName,
      onFailureQueueUrl: bridge.publisherFailures,
      streams: new DynamoDBStreamsClient({ ...aws, endpoint: bridge.dynamodb }),
    },
    tables: bridge.tables,
    documents,
  };
};

/** The stack's outputs by logical id; a stack that is missing any required one is an error. */
export const readStackOutputs = async (
  cloudFormation: CloudFormationClient,
  stack: string,
): Promise<Record<OutputName, string> & Partial<Record<OptionalOutputName, string>>> => {
  const answer = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
  const found = answer.Stacks?.[0];
  if (found === undefined) throw new OperationError(`stack ${stack} not found`);
  const outputs = new Map(
    (found.Outputs ?? []).flatMap((output) =>
      output.OutputKey !== undefined && output.OutputValue !== undefined
        ? [[output.OutputKey, output.OutputValue] as const]
        : [],
    ),
  );
  const missing = REQUIRED_OUTPUTS.filter((name) => !outputs.has(name));
  if (missing.length > 0) {
    throw new OperationError(
      `stack ${stack} lacks the output${missing.length === 1 ? '' : 's'} ${missing.join(', ')}; deploy a msgbridge version that has ${missing.length === 1 ? 'it' : 'them'}`,
    );
  }
  return Object.fromEntries(
    [...REQUIRED_OUTPUTS, ...OPTIONAL_OUTPUTS].flatMap((name) => {
      const value = outputs.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  ) as Record<OutputName, string> & Partial<Record<OptionalOutputName, string>>;
};

const parseHosts = (stack: string, value: string): GatewayHosts => {
  try {
    return GatewayHostsSchema.parse(JSON.parse(value));
  } catch {
    throw new OperationError(
      `stack ${stack}: the GatewayHosts output is not {"api","send","mnt"} URLs: ${value}`,
    );
  }
};

const stackTarget = async (
  stack: string,
  region: string | undefined,
  deps: TargetDeps,
): Promise<Target> => {
  const config = region === undefined ? {} : { region };
  const aws = deps.aws ?? {};
  const outputs = await readStackOutputs(
    aws.cloudFormation ?? new CloudFormationClient(config),
    stack,
  );
  const hosts = parseHosts(stack, outputs.GatewayHosts);
  const documents = documentClient(aws.dynamodb ?? new DynamoDBClient(config));
  const secrets = once(() => aws.secretsManager ?? new SecretsManagerClient(config));
  // Read only when the provider must re-authenticate or an opt-out call needs the apiKey.
  let credentials: Promise<GatewayCredentials> | undefined;
  const readCredentials = () => {
    credentials ??= secrets()
      .send(new GetSecretValueCommand({ SecretId: outputs.GatewayCredentialsArn }))
      .then((answer) => {
        const parsed = GatewayCredentialsSchema.safeParse(JSON.parse(answer.SecretString ?? '{}'));
        if (!parsed.success) {
          throw new OperationError(
            `secret ${outputs.GatewayCredentialsArn} must hold {"apiKey": "...", "apiPassword": "..."}`,
          );
        }
        return parsed.data;
      });
    return credentials;
  };
  return {
    kind: 'stack',
    origin: { kind: 'stack', name: stack, region },
    describe: () => `stack ${stack}${region === undefined ? '' : ` in ${region}`}`,
    gateway: once(() =>
      gatewayClients({
        hosts,
        stateTable: outputs.StateTableName,
        documents,
        credentials: readCredentials,
      }),
    ),
    sqs: aws.sqs ?? new SQSClient(config),
    queues: { send: outputs.SendQueueUrl, dlq: outputs.SendDlqUrl },
    events: {
      kind: 'stack',
      client: aws.eventBridge ?? new EventBridgeClient(config),
      busName: outputs.EventBusName,
      busArn: outputs.EventBusArn,
      archiveArn: outputs.EventArchiveArn,
      onFailureQueueUrl: outputs.PublisherOnFailureQueueUrl,
      eventSource: outputs.EventSource,
      streams: aws.dynamodbStreams ?? new DynamoDBStreamsClient(config),
    },
    tables: { events: outputs.EventTableName, state: outputs.StateTableName },
    documents,
  };
};
