import { describe, expect, it } from 'vitest';
import { summarize } from '../../bench/summary.ts';

describe('the benchmark summary', () => {
  it('reads each goal figure from the scenario that measures it', () => {
    const summary = summarize({
      'end-to-end': {
        outbound: {
          costPerMillionUsd: 5.68,
          cost: [
            { line: 'Lambda requests', unitsPerMessage: 0.05 },
            { line: 'DynamoDB write request units', unitsPerMessage: 5.145 },
          ],
        },
        inbound: { costPerMillionUsd: 7.01 },
      },
      'end-to-end-single': { outbound: { costPerMillionUsd: 7.58 } },
      send: { achievedRateRatio: 0.986, highestSecondRatio: 1 },
      'cold-start': {
        maxImportRatioReceivers: 12.5,
        maxImportRatio: 20.1,
        maxBundleKiBReceivers: 640,
        maxBundleKiB: 790,
      },
    });

    expect(summary).toEqual({
      outboundCostPerMillionUsd: 5.68,
      outboundSingleRecipientCostPerMillionUsd: 7.58,
      inboundCostPerMillionUsd: 7.01,
      writeUnitsPerRecipient: 5.145,
      quotaUse: 0.986,
      quotaMaxSecondRatio: 1,
      maxImportRatioReceivers: 12.5,
      maxImportRatio: 20.1,
      maxBundleKiBReceivers: 640,
      maxBundleKiB: 790,
    });
  });

  it('leaves a figure null while its scenario has not run', () => {
    const summary = summarize({ send: { achievedRateRatio: 0.99, highestSecondRatio: 1 } });

    expect(summary.quotaUse).toBe(0.99);
    expect(summary.outboundCostPerMillionUsd).toBeNull();
    expect(summary.writeUnitsPerRecipient).toBeNull();
    expect(summary.maxBundleKiB).toBeNull();
  });
});
