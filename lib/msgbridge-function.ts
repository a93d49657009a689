import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  AssetHashType,
  DockerImage,
  Duration,
  type ILocalBundling,
  RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type Construct, type IConstruct, Node } from 'constructs';
import { bundleLambdaSync, PREBUILT_BUNDLE_FILE } from './bundling.ts';

/**
 * The logs and traces of every msgbridge function, chosen once for a stack
 * (`MsgbridgeStackProps.observability`, context key `observability`). docs/performance.md
 * ("CloudWatch Logs", "X-Ray") has the cost of each choice; docs/deploy.md, what each gives up.
 */
export interface FunctionObservabilityOptions {
  /**
   * The application log level (Lambda's advanced logging controls): Lambda drops the functions'
   * lines below it, and Powertools, which reads it from `AWS_LAMBDA_LOG_LEVEL`, does not write
   * them. At most INFO: the functions' metrics are embedded-metric-format lines, which carry no
   * level, and Lambda files a line without a level under INFO, so any higher level would drop every
   * custom metric and leave the alarms on them without data. `DEBUG` adds a line per webhook body
   * stored and per attachment stored.
   * @default 'INFO'
   */
  readonly applicationLogLevel?: 'TRACE' | 'DEBUG' | 'INFO';
  /**
   * The system log level: which of Lambda's own lines reach the log group. `WARN` writes only the
   * lines of invocations and initialisations that did not succeed (a timeout, a crash, a failed
   * init: their `platform.report` or `platform.runtimeDone`, whose status is not success) and
   * dropped-log notices; `INFO` adds `platform.start` and `platform.report` to every invocation
   * (about 700 bytes: duration, billed duration, memory used, init duration) and
   * `platform.initStart` (the runtime version) to every cold start; `DEBUG` adds more.
   * @default 'WARN'
   */
  readonly systemLogLevel?: 'DEBUG' | 'INFO' | 'WARN';
  /**
   * Lambda's own X-Ray tracing of the functions; no function carries a tracing SDK. `pass-through`:
   * Lambda records a function's segments (the service's and the function's, with its
   * initialisation and invocation) only in a trace an upstream caller sampled (a producer that
   * traces its `SendMessage`, the REST API stage with `webhooks.stageTracing`, a traced
   * `send-messages` for the report checks it enqueues), and starts none of its own; `active`:
   * Lambda also samples every invocation that arrives without a decision, by its fixed rule (the
   * first each second and 5% of the rest, per function; Lambda does not apply X-Ray sampling rules
   * to it). Either way the AWS SDK passes the invocation's trace header on with every call, so SQS
   * and EventBridge carry the trace to the next function or target; DynamoDB Streams do not.
   * `disabled`: no tracing configuration and no X-Ray permission, so no segment is recorded.
   * docs/operations.md ("Tracing") says what a trace holds and how to follow a message without one.
   * @default 'pass-through'
   */
  readonly tracing?: 'active' | 'pass-through' | 'disabled';
}

/** The values every function gets when the stack chooses nothing. */
export const DEFAULT_OBSERVABILITY: Required<FunctionObservabilityOptions> = {
  applicationLogLevel: 'INFO',
  systemLogLevel: 'WARN',
  tracing: 'pass-through',
};

const APPLICATION_LEVELS = ['TRACE', 'DEBUG', 'INFO'] as const;
const SYSTEM_LEVELS = ['DEBUG', 'INFO', 'WARN'] as const;
const TRACING_MODES = ['active', 'pass-through', 'disabled'] as const;

/** The problems with `FunctionObservabilityOptions`, for a caller that reports all at once. */
export const observabilityProblems = (options: FunctionObservabilityOptions): string[] => {
  const oneOf = (name: string, value: unknown, allowed: readonly string[], why = '') =>
    value === undefined || allowed.includes(value as string)
      ? []
      : [
          `${name} must be ${allowed.map((each) => `"${each}"`).join(', ')}${why}, got "${String(value)}"`,
        ];
  return [
    ...oneOf(
      'applicationLogLevel',
      options.applicationLogLevel,
      APPLICATION_LEVELS,
      ' (a higher level would drop the functions’ metrics, which Lambda files under INFO)',
    ),
    ...oneOf('systemLogLevel', options.systemLogLevel, SYSTEM_LEVELS),
    ...oneOf('tracing', options.tracing, TRACING_MODES),
  ];
};

const TRACING: Record<(typeof TRACING_MODES)[number], Tracing> = {
  active: Tracing.ACTIVE,
  'pass-through': Tracing.PASS_THROUGH,
  disabled: Tracing.DISABLED,
};

const chosen = new WeakMap<IConstruct, Required<FunctionObservabilityOptions>>();

/**
 * Sets what every `MsgbridgeFunction` below `scope` gets (options left out keep their defaults);
 * call it before the functions are created. `MsgBridge` calls it on itself with its
 * `observability` prop.
 */
export const setFunctionObservability = (
  scope: IConstruct,
  options: FunctionObservabilityOptions = {},
): void => {
  chosen.set(scope, { ...DEFAULT_OBSERVABILITY, ...defined(options) });
};

/** The observability of the functions below `scope`: the setting of the nearest scope that has one. */
export const functionObservability = (scope: Construct): Required<FunctionObservabilityOptions> => {
  const owner = [...Node.of(scope).scopes].reverse().find((each) => chosen.has(each));
  return (owner && chosen.get(owner)) ?? DEFAULT_OBSERVABILITY;
};

const defined = <T extends object>(object: T): Partial<T> =>
  Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== undefined),
  ) as Partial<T>;

export interface MsgbridgeFunctionProps
  extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'bundling'> {
  /** Path of the handler's entry file, e.g. `functions/receive-reports.ts`. */
  readonly entry: string;
  /**
   * Days the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Encrypts the function's log group; its key policy must let CloudWatch Logs use it
   * (`DataKey`). The function itself needs no permission on it.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: IKey;
}

/**
 * What Lambda needs to attach a function to a VPC (the EC2 actions of the
 * `AWSLambdaVPCAccessExecutionRole` managed policy, without its logs actions on every log group).
 */
export const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/**
 * The directory of the prebuilt bundle of `entry`, when there is one: the published package
 * carries `dist/lambda/<name>/` beside `dist/lib/` (scripts/build-package.ts), so that a CDK app
 * using it needs neither esbuild nor the functions' sources. A checkout has none and bundles.
 */
export const prebuiltBundle = (entry: string): string | undefined => {
  const directory = join(
    import.meta.dirname,
    '..',
    'lambda',
    basename(entry).replace(/\.[cm]?[jt]s$/, ''),
  );
  return existsSync(join(directory, PREBUILT_BUNDLE_FILE)) ? directory : undefined;
};

/** Bundles one entry with the local esbuild, in a child `node` (`bundleLambdaSync`). */
class LocalEsbuild implements ILocalBundling {
  /**
   * `entry` is a field so that it is part of the asset's cache key: CDK caches an asset by its
   * source path and its bundling options, as JSON, where a function does not show.
   */
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    // Only a checkout bundles (the package ships its bundles prebuilt, `prebuiltBundle`), with
    // the checkout's esbuild, in a process of its own.
    bundleLambdaSync(this.entry, outputDir);
    return true;
  }
}

/**
 * The asset of `entry` bundled by the local esbuild (never Docker, so `cdk synth` works offline),
 * hashed by its output as `NodejsFunction` hashes its own.
 */
const bundledCode = (entry: string): Code =>
  Code.fromAsset(join(import.meta.dirname, '..'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never run: the local bundling succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs24.x'),
      local: new LocalEsbuild(entry),
    },
  });

/**
 * A Lambda function with msgbridge's defaults: the current Node.js runtime on arm64, an ESM bundle
 * with code splitting built by the local esbuild (`bundledCode`) or prebuilt by the package build
 * with the same settings (`prebuiltBundle`), JSON logs
 * into a log group the stack owns at the stack's log levels (advanced logging controls), and the
 * stack's X-Ray tracing mode (`setFunctionObservability`; a function's own `tracing`,
 * `applicationLogLevelV2` or `systemLogLevelV2` prop overrides it).
 *
 * Unless a `role` is given, the function gets its own role that may write to its own log group
 * only, instead of the `AWSLambdaBasicExecutionRole` managed policy (which allows every log group
 * of the account); callers add what the handler needs with `grant*` calls. In a VPC, the role gets
 * the network-interface actions itself, instead of `AWSLambdaVPCAccessExecutionRole` (which also
 * allows every log group).
 */
export class MsgbridgeFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: MsgbridgeFunctionProps) {
    const { logRetention, logEncryptionKey, ...functionProps } = props;
    const observability = functionObservability(scope);
    const logGroup = new LogGroup(scope, `${id}-logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      ...(logEncryptionKey ? { encryptionKey: logEncryptionKey } : {}),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const ownRole = functionProps.role
      ? undefined
      : new Role(scope, `${id}-role`, {
          assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
          description: `msgbridge ${id}: its own log group plus the grants its construct adds`,
        });
    if (ownRole) logGroup.grantWrite(ownRole);
    const inVpc = functionProps.vpc !== undefined;
    // Lambda checks at creation that the role may manage the function's network interfaces.
    if (ownRole && inVpc)
      ownRole.addToPolicy(
        new PolicyStatement({ actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] }),
      );
    const tracing = functionProps.tracing ?? TRACING[observability.tracing];
    const prebuilt = prebuiltBundle(functionProps.entry);
    super(scope, id, {
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[observability.applicationLogLevel],
      systemLogLevelV2: SystemLogLevel[observability.systemLogLevel],
      logGroup,
      ...functionProps,
      tracing,
      ...(ownRole ? { role: ownRole } : {}),
      runtime: Runtime.NODEJS_24_X,
      // Given `code`, NodejsFunction deploys it as it is: its own bundling writes one file, which
      // cannot split (`lambdaBuildOptions`).
      code: prebuilt ? Code.fromAsset(prebuilt) : bundledCode(functionProps.entry),
      handler: `${PREBUILT_BUNDLE_FILE.replace(/\.mjs$/, '')}.handler`,
    });
    // Active and pass-through tracing both make CDK grant the X-Ray writes (on "*").
    const traced = tracing !== Tracing.DISABLED;
    if (ownRole && (traced || inVpc)) {
      const reasons = [
        ...(traced
          ? [
              'X-Ray tracing (active or pass-through) makes CDK grant xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions (the X-Ray service authorisation reference lists only "*").',
            ]
          : []),
        ...(inVpc
          ? [
              'In the fixed-egress VPC, Lambda needs the network-interface actions of AWSLambdaVPCAccessExecutionRole on "*" (the describe actions support no resource-level permissions, and Lambda checks the create and delete actions on "*" when the function is created), granted here without that policy\'s logs actions on every log group.',
            ]
          : []),
      ];
      Validations.of(ownRole).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: `${reasons.join(' ')} The infrastructure tests fail if any other action is granted on "*".`,
      });
    }
  }
}
