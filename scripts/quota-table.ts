/**
 * The default-quota section of docs/performance.md, rendered from aws-semantics/default-quotas.ts
 * for every Region msgbridge deploys in (lib/region-support.ts). `npm run docs:quotas` writes it;
 * a unit test fails when the committed page differs from what this renders.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_QUOTAS,
  type DefaultQuota,
  defaultQuota,
  eventBridgeDemand,
  PER_REGION_LIST_NOT_READ,
  PUT_EVENTS_MAX_ENTRIES,
  QUOTA_SOURCES,
  QUOTAS_READ_ON,
  REGIONS_NOT_READ,
} from '../aws-semantics/default-quotas.ts';
import { REGION_SUPPORT } from '../lib/region-support.ts';

export const QUOTA_TABLE_PATH = 'docs/performance.md';
const START = '<!-- default-quotas:start -->';
const END = '<!-- default-quotas:end -->';

const root = join(import.meta.dirname, '..');

/** Every Region either front deploys in, sorted. */
export const supportedRegions = (): string[] =>
  [
    ...new Set([
      ...REGION_SUPPORT.fronts['function-url'].supported,
      ...REGION_SUPPORT.fronts['rest-api'].supported,
    ]),
  ].sort();

const number = (value: number) => value.toLocaleString('en-US');
const code = (quota: DefaultQuota) =>
  quota.quotaCode === undefined ? '—' : `\`${quota.serviceCode}\` \`${quota.quotaCode}\``;

/** The events a second the bus takes at one subscriber rule per event: the lower of both quotas. */
const busEventsPerSecond = (region: string): number => {
  const perEvent = eventBridgeDemand(1);
  return Math.min(
    defaultQuota('putEvents', region) / perEvent.putEventsRequestsPerSecond,
    defaultQuota('invocations', region) / perEvent.invocationsPerSecond,
  );
};

/** The section, markers included. */
export const renderQuotaSection = (): string => {
  const { putEvents, invocations } = DEFAULT_QUOTAS;
  const named = (region: string) => (Object.hasOwn(putEvents.byRegion, region) ? '' : ' (other)');
  const notRead = new Set<string>(REGIONS_NOT_READ);
  const perRegion = supportedRegions()
    .map(
      (region) =>
        `| \`${region}\`${notRead.has(region) ? ' ¹' : ''} | ${number(defaultQuota('putEvents', region))}${named(region)} | ${number(defaultQuota('invocations', region))}${named(region)} | ${number(busEventsPerSecond(region))} |`,
    )
    .join('\n');
  const sameEverywhere = (
    [
      'lambdaConcurrency',
      'synchronousRequestsPerEnvironment',
      'tableWrites',
      'partitionWrites',
      'sqsInFlight',
      'schedulerInvocations',
    ] as const
  )
    .map((id) => {
      const quota = DEFAULT_QUOTAS[id];
      return `| ${quota.name}${PER_REGION_LIST_NOT_READ.includes(id) ? ' ²' : ''} | ${code(quota)} | ${number(quota.otherRegions)} ${quota.unit} | ${quota.adjustable ? 'yes' : 'no'} | ${quota.binds} | [${quota.source.title}](${quota.source.url}) |`;
    })
    .join('\n');
  const sources = Object.values(QUOTA_SOURCES)
    .map((source) => `- "${source.title}", <${source.url}>, read ${QUOTAS_READ_ON}.`)
    .join('\n');
  const codeNotes = Object.values(DEFAULT_QUOTAS)
    .filter((quota) => quota.quotaCodeSource !== undefined)
    .map((quota) => `- \`${quota.quotaCode}\` (${quota.name}): ${quota.quotaCodeSource}.`)
    .join('\n');
  return `${START}
Generated from \`aws-semantics/default-quotas.ts\` (\`npm run docs:quotas\`); a unit test fails when
this section is out of date. The bench, \`msgbridge doctor\` and the before-deploy rules read the
same module.

**EventBridge, per Region** ([${putEvents.source.title}](${putEvents.source.url}), "Custom Event
Bus - Classic quotas", read ${QUOTAS_READ_ON}). "(other)" marks a Region the page does not name: it
has the page's figure for "each of the other supported Regions". The last column is what the bus
takes with one subscriber rule per event: the lower of PutEvents × ${PUT_EVENTS_MAX_ENTRIES} entries a request
and the invocations.

| Region | ${putEvents.name} (\`${putEvents.serviceCode}\` \`${putEvents.quotaCode}\`), requests/s | ${invocations.name} (\`${invocations.serviceCode}\` \`${invocations.quotaCode}\`), invocations/s | events/s the bus takes, one rule each |
| --- | ---: | ---: | ---: |
${perRegion}

¹ A China Region: AWS China documents its quotas on its own pages (docs.amazonaws.cn), which were
not read for this table; the figure shown is the page's for every other Region, not one read for
this Region.

**The same in every supported Region:**

| Quota | Service Quotas code | Default | Adjustable | What it binds | Source |
| --- | --- | ---: | --- | --- | --- |
${sameEverywhere}

² The page's summary gives 1,000 a second in its "primary Regions"; the parts of the page read
gave no list for the others. It binds nothing here (three schedules, the most frequent every 5 minutes).

Lambda's concurrency is what a default account has: "New AWS accounts have reduced concurrency and
memory quotas", raised by AWS with use (Lambda quotas page); \`msgbridge doctor\` reads the
account's own. Codes not printed on their quota's page:

${codeNotes}

Sources:

${sources}
${END}`;
};

/** docs/performance.md with the section replaced by what `renderQuotaSection` renders. */
export const renderQuotaPage = (page = readFileSync(join(root, QUOTA_TABLE_PATH), 'utf8')) => {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start)
    throw new Error(`${QUOTA_TABLE_PATH} has no ${START} … ${END} section to fill`);
  return `${page.slice(0, start)}${renderQuotaSection()}${page.slice(end + END.length)}`;
};
