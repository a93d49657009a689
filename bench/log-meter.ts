/**
 * What the functions write to CloudWatch Logs, measured: a Powertools `Logger` per function at the
 * deployed application log level (read from the stack, `deployed.ts`: Lambda's advanced logging
 * controls set AWS_LAMBDA_LOG_LEVEL, which Powertools follows) that counts the bytes of each line
 * it would print instead of printing it, with the Lambda context fields `injectLambdaContext` adds
 * to every line as deployed. Modelled beside it, at their rendered size: Lambda's platform lines
 * at the deployed system log level (JSON log format, `lib/msgbridge-function.ts`), the EMF line
 * `logMetrics` flushes per invocation, and API Gateway's access-log line (the format of
 * `lib/webhook-api.ts`, read from its source and rendered for a request).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { maskingReplacer } from '../functions/commons/observability.ts';
import type { ApplicationLogLevel, SystemLogLevel } from './deployed.ts';

type LogItemLike = Parameters<Logger['printLog']>[1];

/** Lines and bytes written, per function. */
export class LogBytes {
  readonly byFunction = new Map<string, { lines: number; bytes: number }>();
  add(name: string, bytes: number): void {
    const tally = this.byFunction.get(name) ?? { lines: 0, bytes: 0 };
    tally.lines += 1;
    tally.bytes += bytes;
    this.byFunction.set(name, tally);
  }
  snapshot(): Record<string, { lines: number; bytes: number }> {
    return Object.fromEntries([...this.byFunction].map(([name, t]) => [name, { ...t }]));
  }
}

/** What a deployed line carries besides the context fields: the X-Ray trace id, from the env. */
const XRAY_FIELD_BYTES = Buffer.byteLength(
  ',"xray_trace_id":"1-6744d3a0-4f2d1b0c9e8a7f6b5c4d3e2f"',
);

const lambdaContext = (name: string, memoryMb: number) => ({
  functionName: `msgbridge-prod-${name}-A1b2C3d4E5f6`,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:ap-northeast-2:123456789012:function:msgbridge-prod-${name}-A1b2C3d4E5f6`,
  memoryLimitInMB: String(memoryMb),
  awsRequestId: '8f5c2b1e-3d4a-4b6c-9e7f-1a2b3c4d5e6f',
  logGroupName: `/aws/lambda/msgbridge-prod-${name}`,
  logStreamName: '2026/11/25/[$LATEST]0123456789abcdef0123456789abcdef',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

/**
 * A logger that counts what it would print. Children (`createChild`) count into the same tally.
 */
export class CountingLogger extends Logger {
  constructor(
    private readonly tally: LogBytes,
    private readonly functionName: string,
    private readonly memoryMb: number,
    options: ConstructorOptions = {},
    /** The deployed application log level: Powertools logs at it (it reads AWS_LAMBDA_LOG_LEVEL). */
    private readonly deployedLevel: ApplicationLogLevel = 'INFO',
  ) {
    super({
      serviceName: functionName,
      // Powertools calls Lambda's FATAL "CRITICAL".
      logLevel: deployedLevel === 'FATAL' ? 'CRITICAL' : deployedLevel,
      jsonReplacerFn: maskingReplacer,
      ...options,
    });
    this.addContext(lambdaContext(functionName, memoryMb));
  }

  protected override printLog(_logLevel: number, log: LogItemLike): void {
    log.prepareForPrint();
    const line = JSON.stringify(log.getAttributes(), this.getJsonReplacer());
    this.tally.add(this.functionName, Buffer.byteLength(line, 'utf8') + 1 + XRAY_FIELD_BYTES);
  }

  protected override createLogger(options?: ConstructorOptions): Logger {
    return new CountingLogger(
      this.tally,
      this.functionName,
      this.memoryMb,
      options,
      this.deployedLevel,
    );
  }
}

// ---- modelled lines ----

const REQUEST_ID = '8f5c2b1e-3d4a-4b6c-9e7f-1a2b3c4d5e6f';
const TRACE =
  'Root=1-6744d3a0-4f2d1b0c9e8a7f6b5c4d3e2f;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=1:a1b2c3d4:0';
const TIME = '2026-11-25T04:40:00.123Z';
const tracing = { spanId: '53995c3f42cd8ad8', type: 'AWSTraceHeader', value: TRACE };
const line = (record: unknown) => Buffer.byteLength(JSON.stringify(record), 'utf8') + 1;

const START_LINE = line({
  time: TIME,
  type: 'platform.start',
  record: { requestId: REQUEST_ID, version: '$LATEST', tracing },
});
const REPORT_LINE = line({
  time: TIME,
  type: 'platform.report',
  record: {
    requestId: REQUEST_ID,
    metrics: { durationMs: 12.345, billedDurationMs: 13, memorySizeMB: 256, maxMemoryUsedMB: 98 },
    tracing,
    status: 'success',
  },
});
const RUNTIME_DONE_LINE = line({
  time: TIME,
  type: 'platform.runtimeDone',
  record: {
    requestId: REQUEST_ID,
    status: 'success',
    metrics: { durationMs: 12.345, producedBytes: 42 },
    spans: [
      { name: 'responseLatency', start: TIME, durationMs: 12.1 },
      { name: 'responseDuration', start: TIME, durationMs: 0.1 },
    ],
    tracing,
  },
});
const INIT_START_LINE = line({
  time: TIME,
  type: 'platform.initStart',
  record: {
    initializationType: 'on-demand',
    phase: 'init',
    runtimeVersion: 'nodejs:24.v12',
    runtimeVersionArn:
      'arn:aws:lambda:ap-northeast-2::runtime:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    functionName: 'msgbridge-prod-send-messages-A1b2C3d4E5f6',
    functionVersion: '$LATEST',
  },
});
const INIT_REPORT_LINE = line({
  time: TIME,
  type: 'platform.initReport',
  record: {
    initializationType: 'on-demand',
    phase: 'init',
    status: 'success',
    metrics: { durationMs: 123.456 },
  },
});

/** Lambda's platform lines of one successful invocation, and of a cold start, at a system log level. */
export interface PlatformLines {
  readonly linesPerInvocation: number;
  readonly perInvocation: number;
  readonly linesPerColdStart: number;
  readonly perColdStart: number;
}

/**
 * Lambda's platform lines in the JSON log format at each system log level (advanced logging
 * controls), rendered as the Lambda docs show them, for an invocation that succeeds:
 * - INFO (Lambda's default: "start" and "report"): `platform.start` and `platform.report` per
 *   invocation; per cold start `platform.initStart` and the init figure the report then carries.
 * - WARN: none. The docs' event mapping gives both lines, `platform.initStart` and the successful
 *   `platform.runtimeDone` and `platform.initReport` levels below WARN; what remains at WARN is a
 *   report, runtimeDone or initReport whose status is not success (a timeout, a crash, a failed
 *   init) and `platform.logsDropped`, which a run without failures does not produce.
 * - DEBUG: INFO's lines and `platform.runtimeDone` per invocation, `platform.initReport` per cold
 *   start (the extension and telemetry lines, which this stack's functions do not have, left out).
 */
export const platformLines = (level: SystemLogLevel): PlatformLines => {
  const info = {
    linesPerInvocation: 2,
    perInvocation: START_LINE + REPORT_LINE,
    linesPerColdStart: 1,
    perColdStart: INIT_START_LINE + Buffer.byteLength(',"initDurationMs":123.456'),
  };
  switch (level) {
    case 'WARN':
      return { linesPerInvocation: 0, perInvocation: 0, linesPerColdStart: 0, perColdStart: 0 };
    case 'INFO':
      return info;
    case 'DEBUG':
      return {
        linesPerInvocation: 3,
        perInvocation: info.perInvocation + RUNTIME_DONE_LINE,
        linesPerColdStart: 2,
        perColdStart: info.perColdStart + INIT_REPORT_LINE,
      };
  }
};

/**
 * The EMF line `logMetrics` writes at the end of an invocation that added metrics, rendered by
 * Powertools for a function's namespace, service dimension and `metricNames` (one value each).
 */
export const emfLineBytes = (service: string, metricNames: readonly string[]): number => {
  const metrics = new Metrics({ namespace: 'msgbridge', serviceName: service });
  for (const name of metricNames) metrics.addMetric(name, MetricUnit.Count, 1);
  return line(metrics.serializeMetrics());
};

// ---- API Gateway access log ----

/** What a real webhook request's access-log fields hold. */
export interface AccessLogRequest {
  readonly resourcePath: string;
  readonly userAgent: string;
  readonly status: number;
  readonly responseLength: number;
  readonly latencyMs: number;
}

const ACCESS_LOG_VALUES = (request: AccessLogRequest): Record<string, string> => ({
  contextRequestId: REQUEST_ID,
  contextExtendedRequestId: 'Bk2PbGq3IAMEbXw=',
  contextRequestTime: '25/Nov/2026:04:40:00 +0000',
  contextIdentitySourceIp: '203.0.113.45',
  contextIdentityUserAgent: request.userAgent,
  contextHttpMethod: 'POST',
  contextResourcePath: request.resourcePath,
  contextProtocol: 'HTTP/1.1',
  contextStatus: String(request.status),
  // No error on a served request: API Gateway writes "-" for an empty variable.
  contextErrorResponseType: '-',
  contextResponseLength: String(request.responseLength),
  contextResponseLatency: String(Math.round(request.latencyMs) + 3),
  contextIntegrationStatus: String(request.status),
  contextIntegrationLatency: String(Math.round(request.latencyMs)),
  // Stage tracing is off by default (`stageTracing`): no trace id.
  contextXrayTraceId: '-',
});

/**
 * The access-log fields of `lib/webhook-api.ts`, in order: `[jsonKey, AccessLogField method]`,
 * read from the source so that a changed format changes the figure.
 */
export const accessLogFields = (
  source = readFileSync(join(import.meta.dirname, '..', 'lib', 'webhook-api.ts'), 'utf8'),
): Array<[string, string]> => {
  const format = source.slice(source.indexOf('AccessLogFormat.custom('));
  const body = format.slice(0, format.indexOf('}),'));
  return [...body.matchAll(/(\w+):\s*AccessLogField\.(\w+)\(\)/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
};

/** One access-log line for `request`, as API Gateway renders the format (plus its newline). */
export const accessLogLineBytes = (
  request: AccessLogRequest,
  fields = accessLogFields(),
): number => {
  const values = ACCESS_LOG_VALUES(request);
  const record = Object.fromEntries(
    fields.map(([key, method]) => [key, values[method] ?? '-'] as const),
  );
  return line(record);
};
