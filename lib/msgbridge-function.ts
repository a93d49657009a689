import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import {
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
  SourceMapMode,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { LAMBDA_BUNDLING } from './bundling.ts';

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
 * A Lambda function with msgbridge's defaults: the current Node.js runtime on arm64, an ESM bundle
 * built by the local esbuild (never Docker, so `cdk synth` works offline), source maps, JSON logs
 * into a log group the stack owns, and X-Ray tracing.
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
    super(scope, id, {
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      ...functionProps,
      ...(ownRole ? { role: ownRole } : {}),
      runtime: Runtime.NODEJS_24_X,
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: LAMBDA_BUNDLING.target,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        minify: LAMBDA_BUNDLING.minify,
        externalModules: [...LAMBDA_BUNDLING.externalModules],
        sourceMap: true,
        sourceMapMode: SourceMapMode.EXTERNAL,
        banner: LAMBDA_BUNDLING.banner,
      },
    });
    const traced = (functionProps.tracing ?? Tracing.ACTIVE) === Tracing.ACTIVE;
    if (ownRole && (traced || inVpc)) {
      const reasons = [
        ...(traced
          ? [
              'Active tracing makes CDK grant xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions (the X-Ray service authorisation reference lists only "*").',
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
