/**
 * Tracing without a tracing SDK (docs/operations.md, "Tracing"): Lambda records a function's
 * segments itself, and the AWS SDK passes the invocation's trace header (`_X_AMZN_TRACE_ID`) on with
 * every AWS call, so that SQS and EventBridge carry the trace to the next hop. Each entry runs as in
 * Lambda (`AWS_LAMBDA_FUNCTION_NAME`, a trace header per invocation), its AWS calls go to a loopback
 * stand-in for DynamoDB, EventBridge and Secrets Manager (`AWS_ENDPOINT_URL`) that keeps the headers
 * they carried, its gateway calls to the simulator, and a loopback socket stands where Lambda's
 * X-Ray daemon listens: nothing in a function may send it anything.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { moBody } from '../../fixtures/gateway-bodies.ts';
import { nodeTransport } from '../../gateway/transport.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import { reportStreamRecords } from '../support/report-stream-records.ts';

const CREDENTIALS = { apiKey: 'trace-key', apiPassword: 'trace-password-0123' };
const WEBHOOK_SECRET = 'webhook-path-secret-0123456789';
const SECRETS: Record<string, unknown> = {
  'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:gateway-AbCdEf': CREDENTIALS,
  'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook-AbCdEf': {
    current: WEBHOOK_SECRET,
  },
};

/** Answers the JSON-protocol calls the entries make: DynamoDB, EventBridge, Secrets Manager. */
const answerAws = (target: string, body: Record<string, unknown>): unknown => {
  const [service, operation] = target.split('.');
  if (service?.startsWith('DynamoDB')) {
    if (operation === 'BatchGetItem')
      return {
        Responses: Object.fromEntries(Object.keys(body.RequestItems as object).map((t) => [t, []])),
      };
    if (operation === 'BatchWriteItem') return { UnprocessedItems: {} };
    return {};
  }
  if (target === 'AWSEvents.PutEvents') {
    const entries = body.Entries as unknown[];
    return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `event-${i}` })) };
  }
  if (target === 'secretsmanager.GetSecretValue') {
    const id = String(body.SecretId);
    return { ARN: id, Name: 'secret', SecretString: JSON.stringify(SECRETS[id]) };
  }
  throw new Error(`unexpected call ${target}`);
};

/** An AWS call the stand-in answered: its target and the trace headers it carried. */
interface AwsCall {
  readonly target: string;
  readonly traceHeader: string | undefined;
  readonly traceparent: string | undefined;
}

const startAws = async (): Promise<{ server: Server; url: string; calls: AwsCall[] }> => {
  const calls: AwsCall[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target']);
      calls.push({
        target,
        traceHeader: one(request.headers, 'x-amzn-trace-id'),
        traceparent: one(request.headers, 'traceparent'),
      });
      const answer = answerAws(target, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200, {
        'content-type': target.startsWith('DynamoDB')
          ? 'application/x-amz-json-1.0'
          : 'application/x-amz-json-1.1',
      });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}`, calls };
};

const one = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** Whatever reaches the address Lambda's X-Ray daemon listens on. */
const startDaemon = async (): Promise<{ socket: Socket; datagrams: string[]; port: number }> => {
  const socket = createSocket('udp4');
  const datagrams: string[] = [];
  socket.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, datagrams, port: socket.address().port };
};

const context = (functionName: string) =>
  ({
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:ap-northeast-2:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: `request-${functionName}`,
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

let traceCount = 0;
/** A trace header as Lambda sets it for one invocation. */
const traceHeader = (sampled: boolean) => {
  traceCount += 1;
  const root = `1-6740a000-${String(traceCount).padStart(24, '0')}`;
  return `Root=${root};Parent=53995c3f42cd8ad8;Sampled=${sampled ? 1 : 0}`;
};

type Handler = (event: unknown, context: Context) => Promise<unknown>;

describe('tracing without a tracing SDK', () => {
  let sim: Simulator;
  let aws: Awaited<ReturnType<typeof startAws>>;
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  let entries: Record<'refreshToken' | 'receiveInbound' | 'publishEvents', Handler>;

  /** Runs `handler` as Lambda runs one invocation with `header`; answers the AWS calls it made. */
  const invoke = async (handler: Handler, name: string, event: unknown, header: string) => {
    const before = aws.calls.length;
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', name);
    vi.stubEnv('_X_AMZN_TRACE_ID', header);
    const result = await handler(event, context(name));
    return { result, calls: aws.calls.slice(before) };
  };

  beforeAll(async () => {
    sim = await startSimulator({ ...CREDENTIALS, port: 0, clock: 'manual' });
    aws = await startAws();
    daemon = await startDaemon();
    const lambda = {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      _HANDLER: 'index.handler',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.port}`,
      AWS_REGION: 'ap-northeast-2',
      AWS_ACCESS_KEY_ID: 'AKIDTRACETEST',
      AWS_SECRET_ACCESS_KEY: 'trace-test-secret',
      AWS_ENDPOINT_URL: aws.url,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      EVENT_TABLE_NAME: 'msgbridge-events',
      STATE_TABLE_NAME: 'msgbridge-state',
      PAYLOAD_BUCKET: 'msgbridge-payloads',
      EVENT_BUS_NAME: 'msgbridge-bus',
      WEBHOOK_SECRET_ARN:
        'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook-AbCdEf',
      GATEWAY_CREDENTIALS_SECRET_ARN:
        'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:gateway-AbCdEf',
      GATEWAY_API_URL: sim.url,
      GATEWAY_SEND_URL: sim.url,
      GATEWAY_MNT_URL: sim.url,
    };
    for (const [name, value] of Object.entries(lambda)) vi.stubEnv(name, value);
    // The entries compose at import, from the environment above, as at a Lambda cold start.
    entries = {
      refreshToken: (await import('../../functions/refresh-token.ts')).handler as Handler,
      receiveInbound: (await import('../../functions/receive-inbound.ts')).handler as Handler,
      publishEvents: (await import('../../functions/publish-events.ts')).handler as Handler,
    };
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    daemon?.socket.close();
    await new Promise((resolve) => aws?.server.close(resolve));
    await sim?.close();
  });

  it('passes the invocation’s trace header on with every AWS call, sampled or not', async () => {
    const sampled = traceHeader(true);
    const refresh = await invoke(entries.refreshToken, 'refresh-token', {}, sampled);
    const unsampled = traceHeader(false);
    const webhook = await invoke(
      entries.receiveInbound,
      'receive-inbound',
      { pathParameters: { secret: WEBHOOK_SECRET }, body: JSON.stringify(moBody(1)) },
      unsampled,
    );

    expect(JSON.parse((webhook.result as { body: string }).body)).toMatchObject({ code: '10000' });
    expect(refresh.calls.map((call) => call.target)).toEqual(
      expect.arrayContaining(['secretsmanager.GetSecretValue']),
    );
    expect(refresh.calls.some((call) => call.target.startsWith('DynamoDB'))).toBe(true);
    for (const call of refresh.calls) expect(call.traceHeader).toBe(sampled);
    expect(webhook.calls.length).toBeGreaterThan(0);
    for (const call of webhook.calls) expect(call.traceHeader).toBe(unsampled);
  });

  it('puts events with the publisher’s trace header, which EventBridge passes on to the targets', async () => {
    const header = traceHeader(true);
    const { calls } = await invoke(
      entries.publishEvents,
      'publish-events',
      { Records: await reportStreamRecords(3) } satisfies DynamoDBStreamEvent,
      header,
    );

    const putEvents = calls.filter((call) => call.target === 'AWSEvents.PutEvents');
    expect(putEvents.length).toBeGreaterThan(0);
    for (const call of putEvents) expect(call).toMatchObject({ traceHeader: header });
  });

  it('sends nothing to the X-Ray daemon: Lambda records the segments itself', async () => {
    await invoke(entries.refreshToken, 'refresh-token', {}, traceHeader(true));
    // UDP on loopback: give a datagram that was sent time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(daemon.datagrams).toEqual([]);
  });

  it('sends no trace header to the gateway or a content host', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const host = createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('_X_AMZN_TRACE_ID', traceHeader(true));
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/status`;

    await nodeTransport({ method: 'GET', url, headers: {}, timeoutMs: 2_000 });
    host.close();

    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0] ?? {})).not.toContain('x-amzn-trace-id');
    expect(Object.keys(seen[0] ?? {})).not.toContain('traceparent');
  });
});
