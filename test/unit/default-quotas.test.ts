/**
 * The Region's default quotas (aws-semantics/default-quotas.ts) as AWS's pages list them, and the
 * table in docs/performance.md generated from them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUOTAS,
  defaultQuota,
  eventBridgeDemand,
  NEW_TABLE_STREAM_SHARDS,
  QUOTA_SOURCES,
  REGIONS_NOT_READ,
} from '../../aws-semantics/default-quotas.ts';
import {
  QUOTA_TABLE_PATH,
  renderQuotaPage,
  renderQuotaSection,
  supportedRegions,
} from '../../scripts/quota-table.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('the default quotas', () => {
  it('give Seoul lower EventBridge rates than us-east-1, us-west-2 and eu-west-1', () => {
    expect(defaultQuota('putEvents', 'ap-northeast-2')).toBe(600);
    expect(defaultQuota('invocations', 'ap-northeast-2')).toBe(1_100);
    for (const region of ['us-east-1', 'us-west-2', 'eu-west-1']) {
      expect(defaultQuota('putEvents', region)).toBe(10_000);
      expect(defaultQuota('invocations', region)).toBe(18_750);
    }
  });

  it('give a Region the page does not name the figure for every other Region', () => {
    expect(Object.hasOwn(DEFAULT_QUOTAS.putEvents.byRegion, 'af-south-1')).toBe(false);
    expect(defaultQuota('putEvents', 'af-south-1')).toBe(400);
    expect(defaultQuota('invocations', 'af-south-1')).toBe(750);
    expect(defaultQuota('lambdaConcurrency', 'ap-northeast-2')).toBe(1_000);
    expect(defaultQuota('tableWrites', 'us-east-1')).toBe(40_000);
  });

  it('name a source page for every quota, and only pages of AWS’s documentation', () => {
    for (const quota of Object.values(DEFAULT_QUOTAS)) {
      expect(Object.values(QUOTA_SOURCES)).toContain(quota.source);
      expect(quota.source.url).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
    }
  });

  it('name only supported Regions as not read', () => {
    for (const region of REGIONS_NOT_READ) expect(supportedRegions()).toContain(region);
  });

  it('count a new on-demand table’s 4,000 writes a second as four stream shards', () => {
    expect(NEW_TABLE_STREAM_SHARDS).toBe(4);
  });
});

describe('what publishing asks of EventBridge', () => {
  it('is a request per 10 events and an invocation per event and rule', () => {
    expect(eventBridgeDemand(6_000)).toEqual({
      putEventsRequestsPerSecond: 600,
      invocationsPerSecond: 6_000,
    });
    expect(eventBridgeDemand(1_000, { rulesPerEvent: 3, entriesPerRequest: 1 })).toEqual({
      putEventsRequestsPerSecond: 1_000,
      invocationsPerSecond: 3_000,
    });
  });

  it('refuses more entries a request than PutEvents takes', () => {
    expect(() => eventBridgeDemand(1, { entriesPerRequest: 11 })).toThrow(RangeError);
  });
});

describe('the quota table in docs/performance.md', () => {
  it('is committed exactly as generated (run `npm run docs:quotas`)', () => {
    const page = readFileSync(join(ROOT, QUOTA_TABLE_PATH), 'utf8');
    expect(page).toBe(renderQuotaPage(page));
  });

  it('has a row for every supported Region, with its own figures', () => {
    const section = renderQuotaSection();
    for (const region of supportedRegions()) expect(section).toContain(`| \`${region}\``);
    expect(section).toContain('| `ap-northeast-2` | 600 | 1,100 | 1,100 |');
    expect(section).toContain('| `af-south-1` | 400 (other) | 750 (other) | 750 |');
  });

  it('fails on a stale page', () => {
    const page = readFileSync(join(ROOT, QUOTA_TABLE_PATH), 'utf8');
    const stale = page.replace('| `ap-northeast-2` | 600 |', '| `ap-northeast-2` | 6000 |');
    expect(stale).not.toBe(page);
    expect(renderQuotaPage(stale)).not.toBe(stale);
  });
});
