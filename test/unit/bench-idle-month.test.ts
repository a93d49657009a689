import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../aws-semantics/cloudformation-template.ts';
import { inventoryOf, rateMinutes } from '../../bench/idle-month-inventory.ts';
import {
  EGRESS_OPTIONS,
  idleMonth,
  idleMonthLines,
  invocationsPerMonth,
  monthAt,
  monthTotal,
  monthTotalAfterFreeTier,
} from '../../bench/idle-month-model.ts';
import { HOURS_PER_MONTH } from '../../bench/prices.ts';
import { REGIONS } from '../../bench/regional-cost.ts';

const fn = (name: string, extra: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Metadata: { 'aws:cdk:path': `msgbridge/Default/scheduled-jobs/${name}/Resource` },
  Properties: { MemorySize: 256, TracingConfig: { Mode: 'PassThrough' }, ...extra },
});
const schedule = (target: string, expression: string) => ({
  Type: 'AWS::Scheduler::Schedule',
  Properties: {
    ScheduleExpression: expression,
    State: 'ENABLED',
    Target: { Arn: { 'Fn::GetAtt': [target, 'Arn'] } },
  },
});

/** A template with what the stack's `nat` mode bills by the month, one or two of each. */
const natTemplate: CfnTemplate = {
  Resources: {
    natGateway: { Type: 'AWS::EC2::NatGateway' },
    natIp: { Type: 'AWS::EC2::EIP' },
    dataKey: { Type: 'AWS::KMS::Key' },
    credentials: { Type: 'AWS::SecretsManager::Secret' },
    webhookSecret: { Type: 'AWS::SecretsManager::Secret' },
    oneMetricAlarm: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
    mathAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Metrics: [{ Expression: 'a + b' }, { MetricStat: {} }, { MetricStat: {} }],
      },
    },
    dashboard: { Type: 'AWS::CloudWatch::Dashboard' },
    refreshToken: fn('refresh-token', { VpcConfig: {} }),
    refreshSchedule: schedule('refreshToken', 'rate(5 minutes)'),
    reconcile: fn('reconcile-status', { VpcConfig: {}, TracingConfig: { Mode: 'Active' } }),
    reconcileSchedule: schedule('reconcile', 'rate(15 minutes)'),
    sendQueue: { Type: 'AWS::SQS::Queue' },
    table: { Type: 'AWS::DynamoDB::GlobalTable' },
    sendSource: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { EventSourceArn: { 'Fn::GetAtt': ['sendQueue', 'Arn'] } },
    },
    streamSource: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { EventSourceArn: { 'Fn::GetAtt': ['table', 'StreamArn'] } },
    },
    functionLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } },
    flowLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 365 } },
    flowLog: { Type: 'AWS::EC2::FlowLog', Properties: { LogGroupName: { Ref: 'flowLogs' } } },
    dynamoDbEndpoint: {
      Type: 'AWS::EC2::VPCEndpoint',
      Properties: { VpcEndpointType: 'Gateway' },
    },
  },
};

/** The same with one NAT instance (no block device mapping: its image's 8 GB) for the gateway. */
const natInstanceTemplate: CfnTemplate = {
  Resources: {
    ...Object.fromEntries(
      Object.entries(natTemplate.Resources).filter(([id]) => id !== 'natGateway'),
    ),
    natInstance: { Type: 'AWS::EC2::Instance', Properties: { InstanceType: 't4g.nano' } },
    recoverAlarm: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'StatusCheck' } },
  },
};

const run = {
  msPerInvocation: 400,
  timeBasis: 'test',
  unitsPerInvocation: { 'DynamoDB read request units': 800, 'KMS requests': 1 },
  logBytesPerInvocation: 900,
};
const runs = { 'refresh-token': run, 'reconcile-status': run };

describe('the idle month', () => {
  it('counts what the template bills by the month', () => {
    const inventory = inventoryOf(natTemplate, runs);

    expect(inventory).toMatchObject({
      natGateways: 1,
      natInstances: 0,
      publicIpv4Addresses: 1,
      kmsKeys: 1,
      secrets: 2,
      alarms: 2,
      alarmMetrics: 1 + 2,
      dashboards: 1,
      sqsEventSources: 1,
      streamEventSources: 1,
      flowLogs: true,
      gatewayEndpoints: 1,
      logRetentionDays: 30,
      flowLogRetentionDays: 365,
    });
    expect(inventory.schedules.map((s) => [s.name, s.everyMinutes, s.inVpc, s.traced])).toEqual([
      ['refresh-token', 5, true, false],
      ['reconcile-status', 15, true, true],
    ]);
    // refresh-token's 4 metrics and reconcile-status's 10 (functions' code, IDLE_METRICS).
    expect(inventory.idleCustomMetrics).toBe(14);
    expect(inventoryOf(natInstanceTemplate, runs)).toMatchObject({
      natGateways: 0,
      natInstances: 1,
      natInstanceVolumeGb: 8,
      alarms: 3,
    });
  });

  it('refuses a NAT instance type it has no price for', () => {
    const larger: CfnTemplate = {
      Resources: {
        ...natInstanceTemplate.Resources,
        natInstance: { Type: 'AWS::EC2::Instance', Properties: { InstanceType: 't4g.small' } },
      },
    };

    expect(() => inventoryOf(larger, runs)).toThrow(/t4g.small; add its hourly price/);
  });

  it('refuses a schedule it cannot read rather than guess its rate', () => {
    expect(rateMinutes('rate(1 minute)')).toBe(1);
    expect(rateMinutes('rate(2 hours)')).toBe(120);
    expect(() => rateMinutes('cron(0 * * * ? *)')).toThrow(/cannot read the schedule/);
  });

  it('has no line below zero, lines that add up, and a NAT instance month below the NAT gateway’s', () => {
    const inventories = {
      natGateway: inventoryOf(natTemplate, runs),
      natInstance: inventoryOf(natInstanceTemplate, runs),
    };

    for (const region of REGIONS) {
      const month = idleMonth(inventories, region);
      for (const option of EGRESS_OPTIONS) {
        for (const line of month[option].lines) {
          expect(line.usdPerMonth, `${region} ${option} ${line.line}`).toBeGreaterThanOrEqual(0);
          expect(line.quantity).toBeGreaterThanOrEqual(0);
          expect(line.usdPerMonth).toBeCloseTo(line.quantity * line.unitPrice, 10);
        }
        expect(month[option].totalUsd).toBeCloseTo(monthTotal(month[option].lines), 10);
        expect(month[option].totalUsdAfterFreeTier).toBeLessThanOrEqual(month[option].totalUsd);
      }
      expect(month.natInstance.totalUsd).toBeLessThanOrEqual(month.natGateway.totalUsd);
    }
  });

  it('prices each fixed line in its Region: the NAT gateway hour at $0.059 in Seoul, $0.045 in US East', () => {
    const inventory = inventoryOf(natTemplate, runs);
    const hours = (region: (typeof REGIONS)[number]) =>
      idleMonthLines(inventory, region).find((line) => line.line === 'NAT gateway hours');

    expect(hours('ap-northeast-2')).toMatchObject({ unitPrice: 0.059, quantity: HOURS_PER_MONTH });
    expect(hours('us-east-1')).toMatchObject({ unitPrice: 0.045 });
    // A Seoul price that could not be read is US East's, and the line says so.
    const alarms = idleMonthLines(inventory, 'ap-northeast-2').find((line) =>
      line.line.startsWith('CloudWatch alarms'),
    );
    expect(alarms?.basis).toMatch(/US East's price: Seoul's not read/);
  });

  it('counts the schedules’ runs and their polling as a month holds them', () => {
    const inventory = inventoryOf(natTemplate, runs);
    const lines = idleMonthLines(inventory, 'us-east-1');
    const of = (name: string) => lines.find((line) => line.line === name)?.quantity;

    expect(invocationsPerMonth(5)).toBeCloseTo((HOURS_PER_MONTH * 60) / 5, 6);
    expect(of('EventBridge Scheduler invocations')).toBeCloseTo(
      invocationsPerMonth(5) + invocationsPerMonth(15),
      6,
    );
    // 1 SQS event source × 5 pollers × 3 long polls a minute.
    expect(of('SQS requests (event sources polling empty queues)')).toBeCloseTo(
      15 * HOURS_PER_MONTH * 60,
      6,
    );
    // Only reconcile-status traces itself (Active).
    expect(of('X-Ray traces (scheduled)')).toBeCloseTo(invocationsPerMonth(15), 6);
    expect(of('DynamoDB read request units (scheduled runs)')).toBeCloseTo(
      800 * (invocationsPerMonth(5) + invocationsPerMonth(15)),
      3,
    );
  });

  it('takes the account’s free allowances off only down to zero', () => {
    const lines = idleMonthLines(inventoryOf(natTemplate, runs), 'us-east-1');
    const free = monthTotalAfterFreeTier(lines);

    // Three alarm metrics and one dashboard are inside the free allowance: their lines go.
    const alarmAndDashboard = lines
      .filter((line) => /alarms|dashboard/.test(line.line))
      .reduce((sum, line) => sum + line.usdPerMonth, 0);
    expect(free).toBeLessThanOrEqual(monthTotal(lines) - alarmAndDashboard + 1e-9);
    expect(free).toBeGreaterThan(0);
  });

  it('adds the per-million cost of a month’s messages to the idle month', () => {
    expect(monthAt(20, 2.5, 10e6)).toBeCloseTo(45, 10);
  });
});
