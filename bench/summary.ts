/**
 * The top-level `summary` of `bench/results.json`: the figures the cost and cold-start goals are
 * judged by, read from the scenarios' own figures (`null` where a scenario has not run yet).
 * docs/performance.md shows them next to their goals.
 */

/** What one scenario wrote; only the fields read here are named. */
interface ScenarioFigures {
  readonly outbound?: {
    readonly costPerMillionUsd?: number;
    readonly cost?: readonly { readonly line: string; readonly unitsPerMessage: number }[];
  };
  readonly inbound?: { readonly costPerMillionUsd?: number };
  readonly achievedRateRatio?: number;
  readonly highestSecondRatio?: number;
  readonly maxImportRatioReceivers?: number;
  readonly maxImportRatio?: number;
  readonly maxBundleKiBReceivers?: number;
  readonly maxBundleKiB?: number;
}

export interface BenchSummary {
  /** USD per million recipients, queue messages of 10 recipients (`end-to-end`). */
  readonly outboundCostPerMillionUsd: number | null;
  /** USD per million recipients, queue messages of 1 recipient (`end-to-end-single`). */
  readonly outboundSingleRecipientCostPerMillionUsd: number | null;
  /** USD per million inbound items (`end-to-end`). */
  readonly inboundCostPerMillionUsd: number | null;
  /** DynamoDB write request units per sent recipient (`end-to-end`). */
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
}

export const summarize = (scenarios: Readonly<Record<string, unknown>>): BenchSummary => {
  const of = (name: string) => scenarios[name] as ScenarioFigures | undefined;
  const [e2e, single, send, cold] = ['end-to-end', 'end-to-end-single', 'send', 'cold-start'].map(
    of,
  );
  const writes = e2e?.outbound?.cost?.find((line) => line.line === 'DynamoDB write request units');
  return {
    outboundCostPerMillionUsd: e2e?.outbound?.costPerMillionUsd ?? null,
    outboundSingleRecipientCostPerMillionUsd: single?.outbound?.costPerMillionUsd ?? null,
    inboundCostPerMillionUsd: e2e?.inbound?.costPerMillionUsd ?? null,
    writeUnitsPerRecipient: writes?.unitsPerMessage ?? null,
    quotaUse: send?.achievedRateRatio ?? null,
    quotaMaxSecondRatio: send?.highestSecondRatio ?? null,
    maxImportRatioReceivers: cold?.maxImportRatioReceivers ?? null,
    maxImportRatio: cold?.maxImportRatio ?? null,
    maxBundleKiBReceivers: cold?.maxBundleKiBReceivers ?? null,
    maxBundleKiB: cold?.maxBundleKiB ?? null,
  };
};
