/**
 * The `scale` scenario's ceilings at a default account's quotas (bench/quota-ceilings.ts): each
 * path's lowest limit, local measurement or Region quota, and the quota that binds the bridge.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ASSUMPTIONS,
  pathCeiling,
  quotaCeilings,
  type ScaleFigures,
  scaleLoads,
} from '../../bench/quota-ceilings.ts';
import { SEOUL_BINDING_QUOTA } from '../support/seoul-binding-quota.ts';

const SEOUL = { region: 'ap-northeast-2', ...DEFAULT_ASSUMPTIONS };
const VIRGINIA = { region: 'us-east-1', ...DEFAULT_ASSUMPTIONS };

/** The figures of the `scale` run of 2026-11-28 (bench/results.json). */
const MEASURED: ScaleFigures = {
  paths: [
    {
      path: 'sending (send-messages, per recipient)',
      itemsPerInvocation: 10,
      ceilingAtMaxConcurrency: 31_623,
    },
    {
      path: 'reports by webhook (receive-reports, per report)',
      itemsPerInvocation: 3.49,
      ceilingAtMaxConcurrency: 70_676,
    },
    {
      path: 'report checks (reconcile-status on its queue, per check)',
      itemsPerInvocation: 91,
      ceilingAtMaxConcurrency: 20_683,
    },
    {
      path: 'inbound by webhook (receive-inbound, per message)',
      itemsPerInvocation: 1,
      ceilingAtMaxConcurrency: 70_385,
    },
  ],
  streams: [
    { path: 'publishing (publish-events, per stream record)' },
    { path: 'attachments (fetch-attachments, per MMS)' },
  ],
  eventTableWritesPerRecipient: 3.74,
  publishing: { streamRecordsPerRecipient: 1.02, ceilingRecipientsPerSecond: 59_493 },
  attachments: { ceilingRecipientsPerSecond: 19_396 },
};

describe('a path at default quotas', () => {
  it('is bound by EventBridge invocations in Seoul: 1,100 a second over one event per recipient', () => {
    const ceiling = pathCeiling(
      { path: 'publishing', localCeiling: 59_493, demand: { events: 1, tableWrites: 1 } },
      SEOUL,
    );
    expect(ceiling.binding).toMatchObject({
      quota: 'invocations',
      quotaCode: 'L-5540C5E3',
      value: 1_100,
    });
    expect(ceiling.ceiling).toBe(1_100);
    // PutEvents carries 10 events a request: 600 requests are 6,000 events.
    expect(ceiling.limits.find((limit) => limit.quota === 'putEvents')?.recipientsPerSecond).toBe(
      6_000,
    );
  });

  it('counts an invocation per rule each event matches', () => {
    const twoRules = pathCeiling(
      { path: 'publishing', localCeiling: 59_493, demand: { events: 1 } },
      { ...SEOUL, rulesPerEvent: 2 },
    );
    expect(twoRules.ceiling).toBe(550);
  });

  it('is bound by PutEvents when each request carries one event', () => {
    const unbatched = pathCeiling(
      { path: 'publishing', localCeiling: 59_493, demand: { events: 1 } },
      { ...SEOUL, entriesPerRequest: 1 },
    );
    expect(unbatched.binding.quota).toBe('putEvents');
    expect(unbatched.ceiling).toBe(600);
  });

  it('gives a webhook receiver 10 requests a second per execution environment', () => {
    const receiver = pathCeiling(
      { path: 'inbound', localCeiling: 70_385, demand: { webhookRequests: 1 } },
      SEOUL,
    );
    expect(receiver.binding.quota).toBe('synchronousRequestsPerEnvironment');
    expect(receiver.ceiling).toBe(10_000);
    const newAccount = pathCeiling(
      { path: 'inbound', localCeiling: 70_385, demand: { webhookRequests: 1 } },
      { ...SEOUL, accountConcurrency: 10 },
    );
    expect(newAccount.ceiling).toBe(100);
  });

  it('keeps the local measurement where no quota is lower', () => {
    const sending = pathCeiling({ path: 'sending', localCeiling: 31_623, demand: {} }, SEOUL);
    expect(sending.binding).toMatchObject({ quota: 'local', value: 31_623 });
    expect(sending.ceiling).toBe(31_623);
  });
});

describe('the scale scenario at default quotas', () => {
  it('binds the bridge in Seoul at EventBridge invocations, on the publishing path', () => {
    const result = quotaCeilings(scaleLoads(MEASURED), SEOUL);
    expect(result.ceilingRecipientsPerSecond).toBe(1_078);
    expect(result.bindingQuota).toEqual(SEOUL_BINDING_QUOTA);
    const ceilingOf = (prefix: string) =>
      result.paths.find((path) => path.path.startsWith(prefix))?.ceiling;
    // 10 requests a second × 1,000 executions × 3.49 reports a body.
    expect(ceilingOf('reports by webhook')).toBeCloseTo(34_900, 0);
    expect(ceilingOf('inbound by webhook')).toBe(10_000);
    expect(ceilingOf('sending')).toBe(31_623);
  });

  it('binds it in us-east-1 at the event table’s 40,000 write units, then the receivers', () => {
    const result = quotaCeilings(scaleLoads(MEASURED), VIRGINIA);
    const publishing = result.paths.find((path) => path.path.startsWith('publishing'));
    expect(publishing?.binding.quota).toBe('tableWrites');
    expect(publishing?.ceiling).toBeCloseTo(40_000 / 3.74, 6);
    expect(result.ceilingRecipientsPerSecond).toBe(10_000);
    expect(result.bindingQuota?.quota).toBe('synchronousRequestsPerEnvironment');
  });
});
