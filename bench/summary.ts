/**
 * The top-level `summary` of `bench/results.json`: the figures the cost and cold-start goals are
 * judged by, read from the scenarios' own figures (`null` where a scenario has not run yet).
 * docs/performance.md shows them next to their goals.
 */

/** What one scenario wrote; only the fields read here are named. */
interface ScenarioFigures {
  readonly outbound?: {
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
  };
  readonly inboundPlain?: { readonly costPerMillionUsd?: number };
  readonly achievedRateRatio?: number;
  readonly highestSecondRatio?: number;
  readonly maxImportRatioReceivers?: number;
  readonly maxImportRatio?: number;
  readonly maxBundleKiBReceivers?: number;
  readonly maxBundleKiB?: number;
  readonly webhookToEvent?: { readonly at50PerSecond?: { readonly p99Ms?: number } };
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
  /** `outboundCostPerMillionUsd` plus the NAT gateway's data processing (`egress.mode: nat`). */
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
  };
};
