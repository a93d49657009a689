/**
 * X-Ray subsegments of the deployed Lambda entries, captured the way Lambda's X-Ray daemon
 * receives them. Each entry runs as in Lambda (`AWS_EXECUTION_ENV`, `LAMBDA_TASK_ROOT`, a trace
 * header per invocation), its AWS calls go to a loopback stand-in for DynamoDB, EventBridge and
 * Secrets Manager (`AWS_ENDPOINT_URL`), its gateway calls to the simulator, and the X-Ray SDK's
 * UDP documents to a loopback socket standing in for the daemon; the test reads those documents.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { moBody } from '../../fixtures/gateway-bodies.ts';
import { traceInvocations } from '../../functions/commons/tracing.ts';
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
// The numbers of the test bodies (gateway-bodies.ts), in any of their spellings.
const PHONE = /01[016789][-\s]?\d{3,4}[-\s]?\d{4}/;

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

const startAws = async (): Promise<{ server: Server; url: string }> => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target']);
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
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}` };
};

/** The documents the X-Ray SDK sends to the daemon: a JSON header line, then the (sub)segment. */
const startDaemon = async (): Promise<{ socket: Socket; documents: string[]; port: number }> => {
  const socket = createSocket('udp4');
  const documents: string[] = [];
  socket.on('message', (message) => {
    documents.push(message.toString('utf8').split('\n').slice(1).join('\n'));
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, documents, port: socket.address().port };
};

interface TraceDocument {
  readonly name: string;
  readonly error?: boolean;
  readonly fault?: boolean;
  readonly throttle?: boolean;
  readonly cause?: { exceptions?: Array<{ message?: string }> };
  readonly type?: string;
  readonly trace_id: string;
  readonly namespace?: string;
  readonly annotations?: Record<string, unknown>;
  readonly http?: { request?: { method?: string; url?: string }; response?: { status?: number } };
  readonly aws?: Record<string, unknown>;
}

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
  return { root, header: `Root=${root};Parent=53995c3f42cd8ad8;Sampled=${sampled ? 1 : 0}` };
};

type Handler = (event: unknown, context: Context) => Promise<unknown>;

describe('X-Ray subsegments of the Lambda entries', () => {
  let sim: Simulator;
  let aws: { server: Server; url: string };
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  let entries: Record<'refreshToken' | 'receiveInbound' | 'publishEvents', Handler>;

  /** Runs `handler` in an invocation with its own trace header; answers the documents it sent. */
  const invoke = async (handler: Handler, name: string, event: unknown, sampled: boolean) => {
    const { root, header } = traceHeader(sampled);
    vi.stubEnv('_X_AMZN_TRACE_ID', header);
    const result = await handler(event, context(name));
    // UDP on loopback: wait until the trace's datagrams have stopped arriving for 100 ms (and, for
    // a sampled trace, at least one has), however slowly a loaded machine delivers them.
    const ofTrace = () => daemon.documents.filter((document) => document.includes(root));
    for (let quiet = 0, seen = -1, waited = 0; quiet < 100 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const count = ofTrace().length;
      quiet = count === seen && (count > 0 || !sampled) ? quiet + 10 : 0;
      seen = count;
    }
    const documents = ofTrace();
    return { result, documents, parsed: documents.map((d) => JSON.parse(d) as TraceDocument) };
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

  it('records nothing for an invocation the trace header does not sample', async () => {
    const { result, documents } = await invoke(
      entries.receiveInbound,
      'receive-inbound',
      { pathParameters: { secret: WEBHOOK_SECRET }, body: JSON.stringify(moBody(1)) },
      false,
    );

    expect(JSON.parse((result as { body: string }).body)).toMatchObject({ code: '10000' });
    expect(documents).toEqual([]);
    expect(daemon.documents).toEqual([]);
  });

  it('records the gateway call by host, method and status, and the Secrets Manager and DynamoDB calls', async () => {
    const { parsed, documents } = await invoke(entries.refreshToken, 'refresh-token', {}, true);

    const gatewayHost = new URL(sim.url).hostname;
    const names = parsed.map((document) => document.name);
    expect(names).toEqual(
      expect.arrayContaining(['## index.handler', 'SecretsManager', 'DynamoDB', gatewayHost]),
    );
    const gateway = parsed.filter((document) => document.name === gatewayHost);
    expect(gateway.length).toBeGreaterThan(0);
    for (const call of gateway) {
      expect(call.namespace).toBe('remote');
      expect(call.http?.request).toEqual({ method: 'POST', url: `${sim.url}/` });
      expect(call.http?.response?.status).toBe(200);
    }
    const handler = parsed.find((document) => document.name === '## index.handler');
    expect(handler?.annotations).toEqual({ ColdStart: true, Service: 'refresh-token' });
    const everything = documents.join('\n');
    expect(everything).not.toContain(CREDENTIALS.apiPassword);
    expect(everything).not.toContain('/auth/');
  });

  it('records a traced webhook without its phone numbers or its path secret', async () => {
    const { parsed, documents } = await invoke(
      entries.receiveInbound,
      'receive-inbound',
      { pathParameters: { secret: WEBHOOK_SECRET }, body: JSON.stringify(moBody(2, 10)) },
      true,
    );

    const names = parsed.map((document) => document.name);
    expect(names).toEqual(expect.arrayContaining(['## index.handler', 'DynamoDB']));
    // The first sampled invocation of this container is not its cold start.
    const handler = parsed.find((document) => document.name === '## index.handler');
    expect(handler?.annotations).toEqual({ ColdStart: false, Service: 'receive-inbound' });
    const everything = documents.join('\n');
    expect(everything).not.toMatch(PHONE);
    expect(everything).not.toContain(WEBHOOK_SECRET);
  });

  it('records the EventBridge and DynamoDB calls of the publisher without the events’ phone numbers', async () => {
    const records = await reportStreamRecords(3);
    expect(JSON.stringify(records)).toMatch(PHONE);

    const { parsed, documents } = await invoke(
      entries.publishEvents,
      'publish-events',
      { Records: records } satisfies DynamoDBStreamEvent,
      true,
    );

    const names = parsed.map((document) => document.name);
    expect(names).toEqual(expect.arrayContaining(['## index.handler', 'EventBridge', 'DynamoDB']));
    const putEvents = parsed.find((document) => document.name === 'EventBridge');
    expect(putEvents?.aws).toMatchObject({ operation: 'PutEvents' });
    expect(documents.join('\n')).not.toMatch(PHONE);
  });

  it('flags a gateway answer of 4xx as an error, 429 as throttled, 5xx and no answer as a fault', async () => {
    const statuses = createServer((request, response) => {
      response.writeHead(Number(request.url?.split('/')[2])).end();
    });
    await new Promise<void>((resolve) => statuses.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(statuses.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedOrigin = `http://localhost:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const call = (url: string) =>
      nodeTransport({ method: 'GET', url, headers: {}, timeoutMs: 2_000 }).catch(() => undefined);
    const probe = middy(async () => {
      // A phone number in the path, as in a status query, must not reach the trace.
      for (const status of [404, 429, 503]) await call(`${origin}/status/${status}/01012345678`);
      await call(`${closedOrigin}/01012345678`);
    }).use(traceInvocations('probe'));

    const { parsed, documents } = await invoke(probe as Handler, 'probe', {}, true);
    statuses.close();

    const calls = parsed.filter((document) => document.namespace === 'remote');
    expect(calls.map((c) => [c.http?.response?.status, c.error, c.throttle, c.fault])).toEqual([
      [404, true, undefined, undefined],
      [429, true, true, undefined],
      [503, undefined, undefined, true],
      [undefined, undefined, undefined, true],
    ]);
    expect(calls[3]?.name).toBe('localhost');
    expect(calls[3]?.cause?.exceptions?.[0]?.message).toMatch(/ECONNREFUSED/);
    expect(documents.join('\n')).not.toMatch(PHONE);
    expect(documents.join('\n')).not.toContain('/status/');
  });
});
