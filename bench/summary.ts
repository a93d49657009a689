/**
 * The top-level `summary` of `bench/results.json`: the figures the cost and cold-start goals are
 * judged by, read from the scenarios' own figures (`null` where a scenario has not run yet).
 * docs/performance.md shows them next to their goals.
 */

import type { BindingQuota } from './quota-ceilings.ts';
import { DEPLOYED_REGION } from './regional-cost.ts';

/** A path's cost in one Region (`end-to-end`'s `byRegion`). */
interface RegionalFigures {
  readonly costPerMillionUsd?: number;
  readonly storageCostPerMillionUsd?: number;
  readonly floorPerMillionUsd?: number;
  readonly ratioToFloor?: number;
  /** `costPerMillionUsd` plus the NAT's data processing at this Region's price. */
  readonly costPerMillionUsdWithFixedEgress?: number;
}
type ByRegion = Readonly<Record<string, RegionalFigures>>;

/** What one scenario wrote; only the fields read here are named. */
interface ScenarioFigures {
  readonly outbound?: {
    readonly byRegion?: ByRegion;
    readonly costPerMillionUsd?: number;
    readonly costPerMillionUsdWithFixedEgress?: number;

    readonly costPerMillionUsdByFront?: Readonly<Record<string, number>>;
    readonly reconcile?: { readonly costPerMillionUsd?: number };
    readonly cost?: readonly { readonly line: string; readonly unitsPerMessage: number }[];
  };
  readonly inbound?: {
    readonly costPerMillionUsd?: number;
    readonly costPerMillionUsdWithFixedEgress?: number;
    readonly costPerMillionUsdByFront?: Readonly<Record<string, number>>;
    readonly byRegion?: ByRegion;
  };
  readonly inboundPlain?: { readonly costPerMillionUsd?: number; readonly byRegion?: ByRegion };
  /** The `scale` scenario's lowest projected ceiling of any path. */
  readonly minCeilingRecipientsPerSecond?: number;
  /** The `scale` scenario's lowest path ceiling at the deployed Region's default quotas. */
  readonly ceilingAtDefaultQuotasRecipientsPerSecond?: number;
  readonly bindingQuota?: BindingQuota | null;
  readonly achievedRateRatio?: number;
  readonly highestSecondRatio?: number;
  readonly singleRecipientQuotaUse?: number;
  readonly tenRecipientQuotaUse?: number;
  readonly maxImportRatioReceivers?: number;
  readonly maxImportRatio?: number;
  readonly maxBundleKiBReceivers?: number;
  readonly maxBundleKiB?: number;
  readonly webhookToEvent?: { readonly at50PerSecond?: { readonly p99Ms?: number } };
  readonly idleMonthlyUsd?: { readonly natGateway: number; readonly natInstance: number };
  readonly enqueueToGatewayAccepted?: { readonly at50PerSecond?: { readonly p99Ms?: number } };
}

export interface BenchSummary {
  /**
   * USD per million recipients, queue messages of 10 recipients (`end-to-end`), as deployed by
   * default (`bench/deployed.ts`: the front door, log levels and tracing of the stack `cdk.json`
   * describes) but without the fixed-egress NAT line: the counted calls (the deployed front door's
   * requests, Lambda requests and GB-s, DynamoDB, SQS, EventBridge and its archive, S3), reconcile-status's work per
   * recipient and its fixed run spread, and the modelled CloudWatch Logs ingestion, X-Ray traces,
   * KMS and Secrets Manager requests and Lambda INIT at the stated sustained rate.
   */
  readonly outboundCostPerMillionUsd: number | null;
  /** The same, queue messages of 1 recipient (`end-to-end-single`). */
  readonly outboundSingleRecipientCostPerMillionUsd: number | null;
  /**
   * USD per million inbound items (`end-to-end`), with the deployed front door and the same lines
   * as `outboundCostPerMillionUsd` (no reconcile work: inbound has none).
   */
  readonly inboundCostPerMillionUsd: number | null;
  /**
   * DynamoDB write request units per sent recipient (`end-to-end`), both tables: the send path's
   * (send record, rate limiter, report items) and the reconcile run's, together.
   */
  readonly writeUnitsPerRecipient: number | null;
  /** Recipients sent per second over the TPS quota (`send`). */
  readonly quotaUse: number | null;
  /** The busiest second's recipients over the quota; above 1 breaks the quota (`send`). */
  readonly quotaMaxSecondRatio: number | null;
  /**
   * Recipients a second over a 100 TPS quota, 1-recipient messages, the local run with the
   * deployed sending defaults and the gateway answering in 50–150 ms (`send-defaults`).
   */
  readonly singleRecipientQuotaUseAtDefaults: number | null;
  /** The same, 10-recipient messages (`send-defaults`). */
  readonly tenRecipientQuotaUseAtDefaults: number | null;
  /** The busiest second of both over the quota, as the simulator counted it (`send-defaults`). */
  readonly quotaMaxSecondRatioAtDefaults: number | null;
  /** Import time over an empty handler's, the slower receiver (`cold-start`). */
  readonly maxImportRatioReceivers: number | null;
  /** Import time over an empty handler's, the slowest other function (`cold-start`). */
  readonly maxImportRatio: number | null;
  /** Deployed bundle size in KiB, the larger receiver (`cold-start`). */
  readonly maxBundleKiBReceivers: number | null;
  /** Deployed bundle size in KiB, the largest other function (`cold-start`). */
  readonly maxBundleKiB: number | null;
  /** DynamoDB write request units per sent recipient of the reconcile run alone (`end-to-end`). */
  readonly reconcileWriteUnitsPerRecipient: number | null;
  /** Reconcile-status's share of `outboundCostPerMillionUsd` (`end-to-end`). */
  readonly reconcileCostPerMillionUsd: number | null;
  /**
   * `outboundCostPerMillionUsd` of a deployment that also publishes "Message Accepted" events
   * (`end-to-end-accepted`: the same workload with `sending.acceptedEvents` on).
   */
  readonly outboundCostPerMillionUsdWithAcceptedEvents: number | null;
  /** `writeUnitsPerRecipient` of that deployment (`end-to-end-accepted`). */
  readonly writeUnitsPerRecipientWithAcceptedEvents: number | null;
  /**
   * `outboundCostPerMillionUsd` plus the NAT gateway's data processing (`egress.mode: nat`), both at
   * US East's prices like it; in `region`: `costPerMillionUsdWithFixedEgressInRegion`.
   */
  readonly outboundCostPerMillionUsdWithFixedEgress: number | null;
  /** `inboundCostPerMillionUsd` plus the NAT gateway's data processing (`egress.mode: nat`). */
  readonly inboundCostPerMillionUsdWithFixedEgress: number | null;
  /**
   * `inboundCostPerMillionUsd` with each front door: `restApi` (with its stage's access log),
   * `httpApi`, `functionUrl`; the deployed one's equals `inboundCostPerMillionUsd`.
   */
  readonly inboundCostPerMillionUsdByFront: Readonly<Record<string, number>> | null;
  /** `outboundCostPerMillionUsd` with each front door for the report webhooks. */
  readonly outboundCostPerMillionUsdByFront: Readonly<Record<string, number>> | null;
  /**
   * USD per million inbound items without attachments (`end-to-end`, a phase of plain items
   * counted on its own), with the same lines as `inboundCostPerMillionUsd`.
   */
  readonly inboundPlainCostPerMillionUsd: number | null;
  /** Webhook to event on the bus, 99th percentile at 50 posts a second, local run (`latency`). */
  readonly webhookToEventP99Ms: number | null;
  /** Enqueue to the gateway's acceptance, 99th percentile at 50 messages a second, local run (`latency`). */
  readonly enqueueToGatewayAcceptedP99Ms: number | null;
  /** The Region the goals are judged in (`bench/regional-cost.ts`), and of the figures below. */
  readonly region: string;
  /**
   * The floor of 10-recipient outbound per million recipients in `region`: one event and one write
   * unit per recipient, plus the Lambda share `end-to-end` measured.
   */
  readonly outboundFloorPerMillionUsd: number | null;
  /** The same for 1-recipient outbound (`end-to-end-single`). */
  readonly outboundSingleRecipientFloorPerMillionUsd: number | null;
  /** The same for plain inbound items (`end-to-end`'s plain phase). */
  readonly inboundFloorPerMillionUsd: number | null;
  /**
   * Storage per million 10-recipient outbound recipients in `region`, kept for the stack's
   * retentions (event table and its point-in-time recovery, archive, logs).
   */
  readonly storageCostPerMillionUsd: number | null;
  /** Storage per million of each path in `region` (outbound, 1-recipient, inbound at 10 % MMS, plain inbound). */
  readonly storageCostPerMillionUsdByPath: Readonly<Record<string, number | null>>;
  /** Each path's full cost (storage included) over its floor, in `region`. */
  readonly ratioToFloorInRegion: Readonly<Record<string, number | null>>;
  /**
   * Each path's full cost in `region` plus the NAT's data processing at `region`'s price (the
   * default `egress.mode: nat`, DynamoDB and S3 through gateway endpoints); null for a path that
   * has no NAT line (plain inbound is priced with the mixed inbound's).
   */
  readonly costPerMillionUsdWithFixedEgressInRegion: Readonly<Record<string, number | null>>;
  /** The lowest projected capacity of any path, recipients a second (`scale`). */
  readonly minCeilingRecipientsPerSecond: number | null;
  /**
   * The lowest path ceiling in `region` at a default account's quotas (`scale`, projected by
   * bench/quota-ceilings.ts): each path's local measurement or the quota that lets fewer through.
   */
  readonly ceilingAtDefaultQuotasRecipientsPerSecond: number | null;
  /** The quota that sets `ceilingAtDefaultQuotasRecipientsPerSecond`, and on which path. */
  readonly bindingQuota: BindingQuota | null;
  /**
   * USD a month in `region` of a deployment that sends and receives nothing (`idle-month`): every
   * fixed line at list price without free tiers, with the default NAT gateway (`egress.mode:
   * nat`) and with a NAT instance (`nat-instance`).
   */
  readonly idleMonthlyUsd: { readonly natGateway: number; readonly natInstance: number } | null;
}

export const summarize = (scenarios: Readonly<Record<string, unknown>>): BenchSummary => {
  const of = (name: string) => scenarios[name] as ScenarioFigures | undefined;
  const [e2e, single, accepted, send, cold, latency] = [
    'end-to-end',
    'end-to-end-single',
    'end-to-end-accepted',
    'send',
    'cold-start',
    'latency',
  ].map(of);
  const scale = of('scale');
  const atDefaults = of('send-defaults');
  const byPath = (key: keyof RegionalFigures) => ({
    outbound: inRegion(e2e?.outbound?.byRegion)?.[key] ?? null,
    outboundSingleRecipient: inRegion(single?.outbound?.byRegion)?.[key] ?? null,
    inbound: inRegion(e2e?.inbound?.byRegion)?.[key] ?? null,
    inboundPlain: inRegion(e2e?.inboundPlain?.byRegion)?.[key] ?? null,
  });
  const unitsOf = (scenario: ScenarioFigures | undefined, name: string) =>
    scenario?.outbound?.cost?.find((line) => line.line === name)?.unitsPerMessage;
  // The send path's and the reconcile run's, together.
  const writesOf = (scenario: ScenarioFigures | undefined) => {
    const sendWrites = unitsOf(scenario, 'DynamoDB write request units');
    return sendWrites === undefined
      ? null
      : sendWrites + (unitsOf(scenario, 'reconcile: DynamoDB write request units') ?? 0);
  };
  const reconcileWrites = unitsOf(e2e, 'reconcile: DynamoDB write request units');
  return {
    outboundCostPerMillionUsd: e2e?.outbound?.costPerMillionUsd ?? null,
    outboundSingleRecipientCostPerMillionUsd: single?.outbound?.costPerMillionUsd ?? null,
    inboundCostPerMillionUsd: e2e?.inbound?.costPerMillionUsd ?? null,
    writeUnitsPerRecipient: writesOf(e2e),
    quotaUse: send?.achievedRateRatio ?? null,
    quotaMaxSecondRatio: send?.highestSecondRatio ?? null,
    singleRecipientQuotaUseAtDefaults: atDefaults?.singleRecipientQuotaUse ?? null,
    tenRecipientQuotaUseAtDefaults: atDefaults?.tenRecipientQuotaUse ?? null,
    quotaMaxSecondRatioAtDefaults: atDefaults?.highestSecondRatio ?? null,
    maxImportRatioReceivers: cold?.maxImportRatioReceivers ?? null,
    maxImportRatio: cold?.maxImportRatio ?? null,
    maxBundleKiBReceivers: cold?.maxBundleKiBReceivers ?? null,
    maxBundleKiB: cold?.maxBundleKiB ?? null,
    reconcileWriteUnitsPerRecipient: e2e?.outbound?.cost ? (reconcileWrites ?? 0) : null,
    reconcileCostPerMillionUsd: e2e?.outbound?.reconcile?.costPerMillionUsd ?? null,
    outboundCostPerMillionUsdWithAcceptedEvents: accepted?.outbound?.costPerMillionUsd ?? null,
    writeUnitsPerRecipientWithAcceptedEvents: writesOf(accepted),
    outboundCostPerMillionUsdWithFixedEgress:
      e2e?.outbound?.costPerMillionUsdWithFixedEgress ?? null,
    inboundCostPerMillionUsdWithFixedEgress: e2e?.inbound?.costPerMillionUsdWithFixedEgress ?? null,
    inboundCostPerMillionUsdByFront: e2e?.inbound?.costPerMillionUsdByFront ?? null,
    outboundCostPerMillionUsdByFront: e2e?.outbound?.costPerMillionUsdByFront ?? null,
    inboundPlainCostPerMillionUsd: e2e?.inboundPlain?.costPerMillionUsd ?? null,
    webhookToEventP99Ms: latency?.webhookToEvent?.at50PerSecond?.p99Ms ?? null,
    enqueueToGatewayAcceptedP99Ms: latency?.enqueueToGatewayAccepted?.at50PerSecond?.p99Ms ?? null,
    region: DEPLOYED_REGION,
    outboundFloorPerMillionUsd: inRegion(e2e?.outbound?.byRegion)?.floorPerMillionUsd ?? null,
    outboundSingleRecipientFloorPerMillionUsd:
      inRegion(single?.outbound?.byRegion)?.floorPerMillionUsd ?? null,
    inboundFloorPerMillionUsd: inRegion(e2e?.inboundPlain?.byRegion)?.floorPerMillionUsd ?? null,
    storageCostPerMillionUsd: inRegion(e2e?.outbound?.byRegion)?.storageCostPerMillionUsd ?? null,
    storageCostPerMillionUsdByPath: byPath('storageCostPerMillionUsd'),
    ratioToFloorInRegion: byPath('ratioToFloor'),
    costPerMillionUsdWithFixedEgressInRegion: byPath('costPerMillionUsdWithFixedEgress'),
    minCeilingRecipientsPerSecond: scale?.minCeilingRecipientsPerSecond ?? null,
    ceilingAtDefaultQuotasRecipientsPerSecond:
      scale?.ceilingAtDefaultQuotasRecipientsPerSecond ?? null,
    bindingQuota: scale?.bindingQuota ?? null,
    idleMonthlyUsd: of('idle-month')?.idleMonthlyUsd ?? null,
  };
};

const inRegion = (byRegion: ByRegion | undefined): RegionalFigures | undefined =>
  byRegion?.[DEPLOYED_REGION];
