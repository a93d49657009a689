/**
 * The cost model in both Regions (bench/regional-cost.ts): lines re-priced by their billed item,
 * storage for the configured retentions, and the floor a goal is judged against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DAYS_PER_MONTH,
  floorPerMillion,
  priceKeyOf,
  REGIONAL_PRICES,
  regionalCost,
  repriced,
  storageLines,
} from '../../bench/regional-cost.ts';

const line = (name: string, unitPrice: number, unitsPerMessage: number) => ({
  line: name,
  unitPrice,
  unitsPerMessage,
  usdPerMillion: unitPrice * unitsPerMessage * 1e6,
});

const RETENTIONS = {
  eventDays: 35,
  pointInTimeRecovery: true,
  attachmentDays: 365,
  archiveDays: 30,
  logDays: 30,
};

describe('the regional cost model', () => {
  it('re-prices each line at the Region’s price of what it bills', () => {
    const lines = [
      line('DynamoDB write request units', 0.625e-6, 2),
      line('EventBridge events (64 KB chunks)', 1e-6, 1),
      line('CloudWatch Logs ingested (GB)', 0.5, 1e-6),
    ];

    const seoul = repriced(lines, 'ap-northeast-2');

    expect(seoul.map((l) => l.usdPerMillion)).toEqual([2 * 0.6778, 1, expect.closeTo(0.76, 10)]);
    expect(repriced(lines, 'us-east-1').map((l) => l.usdPerMillion)).toEqual(
      lines.map((l) => l.usdPerMillion),
    );
  });

  it('scales the spread fixed reconcile run as its lines change between Regions', () => {
    const lines = [
      line('reconcile: DynamoDB read request units', 0.125e-6, 4),
      line('reconcile: fixed work per run (spread)', 1e-7, 1),
    ];

    const [read, fixed] = repriced(lines, 'ap-northeast-2');

    expect(read?.usdPerMillion).toBeCloseTo(4 * 0.1356, 10);
    expect(fixed?.usdPerMillion).toBeCloseTo(0.1 * (0.1356 / 0.125), 10);
  });

  it('refuses a line it has no price for, naming it', () => {
    expect(() => priceKeyOf('Carrier pigeons')).toThrow('"Carrier pigeons"');
  });

  it('has a price for every line the last benchmark run wrote', () => {
    const results = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../bench/results.json'), 'utf8'),
    ) as unknown;
    const names = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        if (typeof record.line === 'string' && 'unitPriceUsd' in record) names.add(record.line);
        Object.values(record).forEach(walk);
      }
    };
    walk(results);

    expect(names.size).toBeGreaterThan(10);
    for (const name of names)
      if (name !== 'reconcile: fixed work per run (spread)')
        expect(() => priceKeyOf(name)).not.toThrow();
  });

  it('prices a kilobyte kept 35 days with point-in-time recovery, and an attachment a year', () => {
    const stored = { dynamoDbBytes: 1_024, s3Bytes: 5_000, archiveBytes: 0, logBytes: 0 };

    const lines = storageLines(stored, RETENTIONS, 'us-east-1');

    const gbMonths = (1_024 / 1024 ** 3) * (35 / DAYS_PER_MONTH);
    expect(lines.map((l) => [l.line, l.usdPerMillion])).toEqual([
      ['DynamoDB storage (GB-month)', expect.closeTo(gbMonths * 0.25 * 1e6, 10)],
      ['DynamoDB point-in-time recovery (GB-month)', expect.closeTo(gbMonths * 0.2 * 1e6, 10)],
      [
        'S3 Standard storage (GB-month)',
        expect.closeTo((5_000 / 1024 ** 3) * (365 / DAYS_PER_MONTH) * 0.023 * 1e6, 10),
      ],
      ['EventBridge archive storage (GB-month)', 0],
      ['CloudWatch Logs storage (GB-month)', 0],
    ]);
    // About 0.27 + 0.22 USD per million messages of a kilobyte each.
    expect(lines[0]?.usdPerMillion).toBeCloseTo(0.274, 2);
    expect(
      storageLines(stored, { ...RETENTIONS, pointInTimeRecovery: false }, 'us-east-1')[1]
        ?.usdPerMillion,
    ).toBe(0);
  });

  it('puts the floor at one event and one write unit plus the measured Lambda share', () => {
    const lines = [
      line('Lambda requests', 0.2e-6, 0.5),
      line('Lambda GB-seconds (arm64)', 0.0000133334, 0.001),
      line('DynamoDB write request units', 0.625e-6, 3),
      line('SQS requests (64 KB chunks)', 0.4e-6, 1),
    ];
    const lambda = 0.5 * 0.2 + 0.001 * 0.0000133334 * 1e6;

    expect(floorPerMillion(lines, 'us-east-1')).toBeCloseTo(1 + 0.625 + lambda, 10);
    expect(floorPerMillion(lines, 'ap-northeast-2')).toBeCloseTo(1 + 0.6778 + lambda, 10);
    const cost = regionalCost(
      lines,
      { dynamoDbBytes: 0, s3Bytes: 0, archiveBytes: 0, logBytes: 0 },
      RETENTIONS,
      'us-east-1',
    );
    expect(cost.ratioToFloor).toBeCloseTo((lambda + 3 * 0.625 + 0.4) / (1 + 0.625 + lambda), 10);
    expect(REGIONAL_PRICES['ap-northeast-2'].eventBridgeEvent).toBe(1e-6);
  });
});
