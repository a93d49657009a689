import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_METRICS } from '../../functions/sending/rate-limit-metric-names.ts';
import { documentedMetrics } from '../support/metrics-docs.ts';

const FUNCTIONS = join(import.meta.dirname, '../../functions');

/**
 * Metric names built from a template, as written in the code, and what they expand to. A new
 * template fails the scan until it is listed here.
 */
const TEMPLATES: Record<string, readonly string[]> = {
  // functions/webhooks/handler.ts: `prefix` is 'Reports' or 'InboundMessages'.
  '`${prefix}Stored`': ['ReportsStored', 'InboundMessagesStored'],
  '`${prefix}Duplicate`': ['ReportsDuplicate', 'InboundMessagesDuplicate'],
  // functions/commons/observability.ts: `addCounts`, whose metrics the scan reads at its calls.
  name: [],
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

const metricNames = (expression: string, file: string): readonly string[] => {
  const literal = /^'([A-Za-z]+)'$/.exec(expression)?.[1];
  if (literal) return [literal];
  const constant = /^RATE_LIMIT_METRICS\.(\w+)$/.exec(expression)?.[1];
  if (constant && constant in RATE_LIMIT_METRICS)
    return [RATE_LIMIT_METRICS[constant as keyof typeof RATE_LIMIT_METRICS]];
  const expanded = TEMPLATES[expression];
  if (expanded) return expanded;
  throw new Error(`${file}: cannot tell which metric addMetric(${expression}, …) emits`);
};

/** Every metric `functions/` emits, with the CloudWatch unit it is emitted in. */
const emittedMetrics = () => {
  const units = new Map<string, Set<string>>();
  const services = new Set<string>();
  for (const file of sourceFiles(FUNCTIONS)) {
    const source = readFileSync(file, 'utf8');
    const where = relative(FUNCTIONS, file);
    for (const [, expression = '', unit = ''] of source.matchAll(
      /\.addMetric\(\s*([^,]+?),\s*MetricUnit\.(\w+)/g,
    )) {
      const cloudWatchUnit = MetricUnit[unit as keyof typeof MetricUnit];
      if (cloudWatchUnit === undefined) throw new Error(`${where}: unknown unit ${unit}`);
      for (const name of metricNames(expression.trim(), where))
        units.set(name, new Set([...(units.get(name) ?? []), cloudWatchUnit]));
    }
    // `addCounts(metrics, { Name: value, … })`: each key a metric of unit Count.
    for (const [, counts = ''] of source.matchAll(/addCounts\(\s*\w+,\s*\{([^}]*)\}/g))
      for (const [, name = ''] of counts.matchAll(/(\w+):/g))
        units.set(name, new Set([...(units.get(name) ?? []), MetricUnit.Count]));
    // Powertools' own metric, with `captureColdStartMetric`.
    if (/captureColdStartMetric:\s*true/.test(source))
      units.set('ColdStart', new Set([MetricUnit.Count]));
    for (const [, service = ''] of source.matchAll(
      /(?:createMetrics|observabilityOf|compose\w+Deps)\('([a-z-]+)'[,)]/g,
    ))
      services.add(service);
  }
  return { units, services };
};

describe('the Metrics table of docs/operations.md', () => {
  const documented = documentedMetrics();
  const emitted = emittedMetrics();

  it('lists every metric the functions emit, with its unit, and nothing else', () => {
    // Assess: names first, for a readable failure.
    const names = [...emitted.units.keys()].sort();
    expect(
      names.filter((name) => !documented.has(name)),
      'emitted but not documented',
    ).toEqual([]);
    expect(
      [...documented.keys()].filter((name) => !emitted.units.has(name)),
      'documented but not emitted',
    ).toEqual([]);
    for (const name of names)
      expect([documented.get(name)?.unit], name).toEqual([...(emitted.units.get(name) ?? [])]);
    // The scan found the metrics of every part of the bridge, not just a few.
    expect(names).toEqual(
      expect.arrayContaining([
        'ReportsStored',
        'EventsPublished',
        'RecipientsAccepted',
        'RateLimitWaitMilliseconds',
        'QuotaRecipientsReserved',
        'TokenMinutesLeft',
        'PollLagSeconds',
        'ReportsReconciled',
        'AttachmentsLost',
        'ColdStart',
      ]),
    );
  });

  it('names only real functions as emitters, by their service dimension', () => {
    expect(emitted.services.size).toBeGreaterThanOrEqual(8);
    for (const [name, row] of documented) {
      if (name === 'ColdStart') continue;
      expect(row.emittedBy.length, name).toBeGreaterThan(0);
      for (const service of row.emittedBy) expect([...emitted.services], name).toContain(service);
    }
  });

  it('follows the naming rules: PascalCase, and one unit per metric', () => {
    for (const [name, units] of emitted.units) {
      expect(name).toMatch(/^(?:[A-Z][a-z]+)+$/);
      expect(units.size, name).toBe(1);
    }
  });
});
