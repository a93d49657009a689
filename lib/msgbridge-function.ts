import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import {
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface MsgbridgeFunctionProps
  extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'bundling'> {
  /** Path of the handler's entry file, e.g. `functions/receive-reports.ts`. */
  readonly entry: string;
  /**
   * Days the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * A Lambda function with msgbridge's defaults: the current Node.js runtime on arm64, an ESM bundle
 * built by the local esbuild (never Docker, so `cdk synth` works offline), source maps, JSON logs
 * into a log group the stack owns, and X-Ray tracing.
 */
export class MsgbridgeFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: MsgbridgeFunctionProps) {
    const { logRetention, ...functionProps } = props;
    const logGroup = new LogGroup(scope, `${id}-logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      ...functionProps,
      runtime: Runtime.NODEJS_24_X,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...functionProps.environment },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        // ESM bundles still meet CommonJS dependencies that call require().
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
  }
}
