import { describe, expect, it } from 'vitest';
import {
  coldStartsPerMessage,
  concurrentContainers,
  frontDoorCosts,
  GB,
  httpApiUnits,
  initGbSecondsPerMessage,
  logEventBytes,
  natBytes,
  perContainerPeriodRequestsPerMessage,
  perGbCostPerMillion,
  perPeriodRequestsPerMessage,
  totalsByFront,
  xrayTracesPerMessage,
  xrayTracesPerSecond,
} from '../../bench/cost-model.ts';
import type { Deployment } from '../../bench/deployed.ts';
import type { PhaseFigures } from '../../bench/end-to-end-figures.ts';
import {
  logBreakdown,
  natPerMillionInRegion,
  reconcileFixedLine,
} from '../../bench/end-to-end-model.ts';
import { platformLines } from '../../bench/log-meter.ts';
import { natTraffic, trafficBeyond } from '../../bench/traffic.ts';

const assume = { messagesPerSecond: 100, containerLifetimeMinutes: 15 };
const sender = { invocationsPerMessage: 0.1, msPerInvocation: 200, memoryMb: 256 };

describe('the cost model', () => {
  it('samples X-Ray traces as the default rule does: 1 a second, then 5% of the rest', () => {
    expect(xrayTracesPerSecond(0.5)).toBe(0.5);
    expect(xrayTracesPerSecond(1)).toBe(1);
    expect(xrayTracesPerSecond(101)).toBeCloseTo(6, 10);
    // 100 msg/s: one function invoked per message (100/s), one every other message (50/s).
    expect(xrayTracesPerMessage([1, 0.5], 100)).toBeCloseTo((5.95 + 3.45) / 100, 10);
    expect(xrayTracesPerMessage([1], 0)).toBe(0);
  });

  it('counts busy containers by Little’s law, at least one while the function is used', () => {
    expect(concurrentContainers(sender, 100)).toBeCloseTo(2, 10);
    expect(concurrentContainers(sender, 1)).toBe(1);
    expect(concurrentContainers({ ...sender, invocationsPerMessage: 0 }, 100)).toBe(0);
  });

  it('bills INIT as cold starts × init time × memory', () => {
    const starts = 2 / 900 / 100;
    expect(coldStartsPerMessage(sender, assume)).toBeCloseTo(starts, 15);
    expect(initGbSecondsPerMessage(sender, 150, assume)).toBeCloseTo(starts * 0.15 * 0.25, 15);
  });

  it('counts a cached secret once per container per cache period', () => {
    // 2 containers, each living 900 s: 3 reads each.
    expect(perContainerPeriodRequestsPerMessage(sender, 300, assume)).toBeCloseTo(
      (2 * 3) / 900 / 100,
      15,
    );
    expect(perPeriodRequestsPerMessage(12, 300, 100)).toBeCloseTo(4e-4, 15);
    expect(perPeriodRequestsPerMessage(12, 300, 0)).toBe(0);
  });

  it('prices the same webhook requests under each front door', () => {
    expect(httpApiUnits(0)).toBe(1);
    expect(httpApiUnits(512 * 1024)).toBe(1);
    expect(httpApiUnits(512 * 1024 + 1)).toBe(2);
    const costs = frontDoorCosts(1_050, 1_050, 1_000);
    expect(costs.restApi).toBeCloseTo(3.675, 10);
    expect(costs.httpApi).toBeCloseTo(1.05, 10);
    expect(costs.functionUrl).toBe(0);
  });

  it('moves a total from the deployed front door to each other, its access log included', () => {
    // Deployed: function URLs ($0); the REST API would add $3.50 of requests and $0.20 of logs.
    const fronts = { restApi: 3.7, httpApi: 1, functionUrl: 0 };
    const fromUrls = totalsByFront(2.1, 'functionUrl', fronts);
    expect(fromUrls.restApi).toBeCloseTo(5.8, 10);
    expect(fromUrls.httpApi).toBeCloseTo(3.1, 10);
    expect(fromUrls.functionUrl).toBe(2.1);
    const fromRest = totalsByFront(5.8, 'restApi', fronts);
    expect(fromRest.functionUrl).toBeCloseTo(2.1, 10);
    expect(fromRest.restApi).toBe(5.8);
  });

  it('adds 26 bytes per log event and prices bytes per GB', () => {
    expect(logEventBytes(1_000, 10)).toBe(1_260);
    expect(perGbCostPerMillion(GB / 1e6, 0.5)).toBeCloseTo(0.5, 10);
  });

  it('adds TLS and TCP/IP framing to the bytes a NAT gateway processes', () => {
    // 100 B: 129 with one TLS record, one segment (40) and an ACK (40); 200 B likewise.
    expect(natBytes(100, 200)).toBe(129 + 80 + 229 + 80);
    // 20,000 B: two TLS records (58), 14 segments.
    expect(natBytes(20_000, 0)).toBe(20_058 + 14 * 40 + 40 + (29 + 80));
  });

  it('spreads the reconcile run’s fixed cost over the messages of its period', () => {
    const line = reconcileFixedLine(1e-4, 1_000, assume);
    expect(line.unitsPerMessage).toBeCloseTo(1 / 900 / 100, 15);
    expect(line.usdPerMillion).toBeCloseTo(1e-4 * (1 / 900 / 100) * 1e6, 12);
  });

  it('sends the gateway’s and the VPC functions’ traffic through NAT, not the others’', () => {
    const tally = (natBytes: number) => ({
      requests: 1,
      requestBytes: 0,
      responseBytes: 0,
      natBytes,
    });
    const nat = natTraffic({
      gateway: tally(1_000),
      'send-messages|DynamoDB|UpdateItem': tally(300),
      'send-messages|SQS|ChangeMessageVisibility': tally(20),
      'publish-events|DynamoDB|PutItem': tally(5_000),
      'unattributed|DynamoDB|PutItem': tally(7_000),
      'unattributed|S3|PutObject': tally(50_000),
    });
    // DynamoDB and S3 go through the gateway endpoints; SQS still crosses the NAT.
    expect(nat).toEqual({
      gateway: 1_000,
      awsApisThroughNat: 20,
      awsApisThroughGatewayEndpoints: 300 + 50_000,
    });
  });

  it('counts no NAT bytes below zero, whatever two snapshots differ by', () => {
    const tally = (requests: number, natBytes: number) => ({
      requests,
      requestBytes: natBytes / 2,
      responseBytes: natBytes / 2,
      natBytes,
    });
    // The idle run read more than a later run of the same job (its scan met more pages).
    const idle = {
      'reconcile-status|SQS|ReceiveMessage': tally(4, 8_000),
      'reconcile-status|DynamoDB|Query': tally(90, 200_000),
    };
    const notDue = { 'reconcile-status|SQS|ReceiveMessage': tally(2, 4_000) };
    const due = {
      'reconcile-status|SQS|SendMessageBatch': tally(3, 6_000),
      'reconcile-status|DynamoDB|Query': tally(10, 20_000),
    };

    const beyond = trafficBeyond([notDue, due], idle);
    const nat = natTraffic({ ...beyond, 'send-messages|SQS|DeleteMessage': tally(1, -500) });

    for (const t of Object.values(beyond)) expect(t.natBytes).toBeGreaterThanOrEqual(0);
    expect(nat).toEqual({
      gateway: 0,
      awsApisThroughNat: 6_000,
      awsApisThroughGatewayEndpoints: 0,
    });
  });

  it('prices the NAT line in each Region at that Region’s rate', () => {
    const nat = { unitsPerMessage: 1 / GB };

    expect(natPerMillionInRegion(nat, 'us-east-1')).toBeCloseTo((0.045 * 1e6) / GB, 12);
    expect(natPerMillionInRegion(nat, 'ap-northeast-2')).toBeCloseTo((0.059 * 1e6) / GB, 12);
  });

  it('models the log lines of each function at its deployed levels, and an access log only for a REST API', () => {
    // 10 inbound items, each one webhook (one receive-inbound invocation), no application line.
    const idle = { invocations: 0, ms: 0 };
    const phase = {
      messages: 10,
      calls: {
        'webhooks POST /webhooks/{secret}/mo': { calls: 10, failures: 0, ms: 50, units: 10 },
      },
      lambda: {
        'receive-reports': idle,
        'receive-inbound': { invocations: 10, ms: 50 },
        'publish-events': idle,
        'send-messages': idle,
        'fetch-attachments': idle,
        'reconcile-status': idle,
      },
      logs: {},
    } as unknown as PhaseFigures;
    const deployed = (
      front: Deployment['front'],
      systemLogLevel: 'INFO' | 'WARN',
      applicationLogLevel: 'INFO' | 'WARN',
    ): Deployment => ({
      front,
      stageTracing: false,
      functions: Object.fromEntries(
        Object.keys(phase.lambda).map((name) => [
          name,
          { applicationLogLevel, systemLogLevel, tracing: 'PassThrough' as const },
        ]),
      ),
      retentions: {
        eventDays: 35,
        pointInTimeRecovery: true,
        attachmentDays: 365,
        archiveDays: 30,
        logDays: 30,
      },
    });

    const urlsWarn = logBreakdown(phase, deployed('function-url', 'WARN', 'INFO'), assume);
    const urlsInfo = logBreakdown(phase, deployed('function-url', 'INFO', 'INFO'), assume);
    const restInfo = logBreakdown(phase, deployed('rest-api', 'INFO', 'INFO'), assume);
    const noMetrics = logBreakdown(phase, deployed('function-url', 'WARN', 'WARN'), assume);

    expect(urlsWarn.platformBytes).toBe(0);
    expect(urlsInfo.platformBytes).toBe(platformLines('INFO').perInvocation);
    expect(urlsWarn.emfBytes).toBeGreaterThan(200);
    expect(urlsWarn.accessLogBytes).toBe(0);
    expect(urlsWarn.restApiAccessLogBilledBytes).toBeGreaterThan(300);
    expect(restInfo.accessLogBytes + 26).toBeCloseTo(restInfo.restApiAccessLogBilledBytes, 10);
    expect(restInfo.billedBytesPerMessage - urlsInfo.billedBytesPerMessage).toBeCloseTo(
      restInfo.restApiAccessLogBilledBytes,
      10,
    );
    // An EMF line has no level: Lambda files it under INFO, and a WARN application level drops it.
    expect(noMetrics.emfBytes).toBe(0);
    expect(noMetrics.billedBytesPerMessage).toBeLessThan(urlsWarn.billedBytesPerMessage);
  });
});

describe('the scale scenario’s ceiling', () => {
  it('is the concurrency times the items an invocation handles a second, per recipient', async () => {
    const { ceiling } = await import('../../bench/scale.ts');

    // 10 invocations of 100 items in 2 s in all: 500 items a second per running invocation.
    const meter = { invocations: 10, ms: 2_000, records: 1_000 };

    expect(ceiling(10, meter, 1)).toBe(5_000);
    expect(ceiling(10, meter, 2)).toBe(2_500);
    expect(ceiling(10, { invocations: 0, ms: 0, records: 0 }, 1)).toBeNaN();
  });

  it('counts a stream shard per 1,000 event-table writes a second, never fewer than a new table’s 4', async () => {
    const { shardsAt } = await import('../../bench/scale.ts');

    expect(shardsAt(5_000, 1.3)).toBe(7);
    expect(shardsAt(5_000, 1)).toBe(5);
    expect(shardsAt(100, 1.3)).toBe(4);
  });
});
