import { describe, expect, it } from 'vitest';
import { summarize } from '../../bench/summary.ts';
import { SEOUL_BINDING_QUOTA } from '../support/seoul-binding-quota.ts';

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
      'send-defaults': {
        singleRecipientQuotaUse: 0.97,
        tenRecipientQuotaUse: 0.995,
        highestSecondRatio: 1,
      },
      'cold-start': {
        maxImportRatioReceivers: 12.5,
        maxImportRatio: 20.1,
        maxBundleKiBReceivers: 640,
        maxBundleKiB: 790,
      },
      latency: {
        webhookToEvent: { at1PerSecond: { p99Ms: 90 }, at50PerSecond: { p99Ms: 240 } },
        enqueueToGatewayAccepted: { at50PerSecond: { p99Ms: 310 } },
      },
    });

    expect(summary).toEqual({
      outboundCostPerMillionUsd: 5.68,
      outboundSingleRecipientCostPerMillionUsd: 7.58,
      inboundCostPerMillionUsd: 7.01,
      writeUnitsPerRecipient: 5.145,
      quotaUse: 0.986,
      quotaMaxSecondRatio: 1,
      singleRecipientQuotaUseAtDefaults: 0.97,
      tenRecipientQuotaUseAtDefaults: 0.995,
      quotaMaxSecondRatioAtDefaults: 1,
      maxImportRatioReceivers: 12.5,
      maxImportRatio: 20.1,
      maxBundleKiBReceivers: 640,
      maxBundleKiB: 790,
      reconcileWriteUnitsPerRecipient: 0,
      reconcileCostPerMillionUsd: null,
      outboundCostPerMillionUsdWithAcceptedEvents: null,
      writeUnitsPerRecipientWithAcceptedEvents: null,
      outboundCostPerMillionUsdWithFixedEgress: null,
      inboundCostPerMillionUsdWithFixedEgress: null,
      inboundCostPerMillionUsdByFront: null,
      outboundCostPerMillionUsdByFront: null,
      inboundPlainCostPerMillionUsd: null,
      webhookToEventP99Ms: 240,
      enqueueToGatewayAcceptedP99Ms: 310,
      region: 'ap-northeast-2',
      outboundFloorPerMillionUsd: null,
      outboundSingleRecipientFloorPerMillionUsd: null,
      inboundFloorPerMillionUsd: null,
      storageCostPerMillionUsd: null,
      storageCostPerMillionUsdByPath: {
        outbound: null,
        outboundSingleRecipient: null,
        inbound: null,
        inboundPlain: null,
      },
      ratioToFloorInRegion: {
        outbound: null,
        outboundSingleRecipient: null,
        inbound: null,
        inboundPlain: null,
      },
      costPerMillionUsdWithFixedEgressInRegion: {
        outbound: null,
        outboundSingleRecipient: null,
        inbound: null,
        inboundPlain: null,
      },
      minCeilingRecipientsPerSecond: null,
      ceilingAtDefaultQuotasRecipientsPerSecond: null,
      bindingQuota: null,
      idleMonthlyUsd: null,
    });
  });

  it('reads floors, storage and ratios in the deployed Region, and the lowest ceiling', () => {
    const regional = (floor: number, storage: number, ratio: number) => ({
      'us-east-1': { floorPerMillionUsd: 0, storageCostPerMillionUsd: 0, ratioToFloor: 0 },
      'ap-northeast-2': {
        floorPerMillionUsd: floor,
        storageCostPerMillionUsd: storage,
        ratioToFloor: ratio,
      },
    });
    const summary = summarize({
      'end-to-end': {
        outbound: { byRegion: regional(1.7, 0.6, 1.9) },
        inbound: { byRegion: regional(1.9, 1.8, 2.5) },
        inboundPlain: { byRegion: regional(1.95, 0.5, 1.3) },
      },
      'end-to-end-single': { outbound: { byRegion: regional(1.8, 0.9, 3.1) } },
      scale: {
        minCeilingRecipientsPerSecond: 6_200,
        ceilingAtDefaultQuotasRecipientsPerSecond: 1_078,
        bindingQuota: SEOUL_BINDING_QUOTA,
      },
    });

    expect(summary).toMatchObject({
      region: 'ap-northeast-2',
      outboundFloorPerMillionUsd: 1.7,
      outboundSingleRecipientFloorPerMillionUsd: 1.8,
      inboundFloorPerMillionUsd: 1.95,
      storageCostPerMillionUsd: 0.6,
      storageCostPerMillionUsdByPath: {
        outbound: 0.6,
        outboundSingleRecipient: 0.9,
        inbound: 1.8,
        inboundPlain: 0.5,
      },
      ratioToFloorInRegion: {
        outbound: 1.9,
        outboundSingleRecipient: 3.1,
        inbound: 2.5,
        inboundPlain: 1.3,
      },
      minCeilingRecipientsPerSecond: 6_200,
      ceilingAtDefaultQuotasRecipientsPerSecond: 1_078,
      bindingQuota: { quota: 'invocations', quotaCode: 'L-5540C5E3', value: 1_100 },
    });
  });

  it('counts the reconcile run’s writes per recipient and reads the cost model’s extra figures', () => {
    const summary = summarize({
      'end-to-end': {
        outbound: {
          costPerMillionUsd: 7.47,
          costPerMillionUsdWithFixedEgress: 7.69,
          reconcile: { costPerMillionUsd: 1.35 },
          cost: [
            { line: 'DynamoDB write request units', unitsPerMessage: 5.2 },
            { line: 'reconcile: DynamoDB write request units', unitsPerMessage: 2 },
          ],
        },
        inbound: {
          costPerMillionUsd: 9.2,
          costPerMillionUsdWithFixedEgress: 9.64,
          costPerMillionUsdByFront: { restApi: 9.2, httpApi: 6.58, functionUrl: 5.53 },
        },
        inboundPlain: { costPerMillionUsd: 4.1 },
      },
      'end-to-end-single': { outbound: { costPerMillionUsd: 9.1 } },
      'end-to-end-accepted': {
        outbound: {
          costPerMillionUsd: 8.43,
          cost: [
            { line: 'DynamoDB write request units', unitsPerMessage: 2.3 },
            { line: 'reconcile: DynamoDB write request units', unitsPerMessage: 0.01 },
          ],
        },
      },
    });

    expect(summary).toMatchObject({
      outboundCostPerMillionUsd: 7.47,
      inboundCostPerMillionUsd: 9.2,
      writeUnitsPerRecipient: 7.2,
      reconcileWriteUnitsPerRecipient: 2,
      reconcileCostPerMillionUsd: 1.35,
      outboundSingleRecipientCostPerMillionUsd: 9.1,
      outboundCostPerMillionUsdWithAcceptedEvents: 8.43,
      outboundCostPerMillionUsdWithFixedEgress: 7.69,
      inboundCostPerMillionUsdWithFixedEgress: 9.64,
      inboundCostPerMillionUsdByFront: { restApi: 9.2, httpApi: 6.58, functionUrl: 5.53 },
      inboundPlainCostPerMillionUsd: 4.1,
    });
    expect(summary.writeUnitsPerRecipientWithAcceptedEvents).toBeCloseTo(2.31, 10);
  });

  it('reads the idle month per egress option and each path with fixed egress in the Region', () => {
    const summary = summarize({
      'idle-month': { idleMonthlyUsd: { natGateway: 60.2, natInstance: 21.0 } },
      'end-to-end': {
        outbound: {
          byRegion: {
            'us-east-1': { costPerMillionUsdWithFixedEgress: 2.5 },
            'ap-northeast-2': { costPerMillionUsdWithFixedEgress: 3.0 },
          },
        },
      },
    });

    expect(summary.idleMonthlyUsd).toEqual({ natGateway: 60.2, natInstance: 21.0 });
    expect(summary.costPerMillionUsdWithFixedEgressInRegion).toEqual({
      outbound: 3.0,
      outboundSingleRecipient: null,
      inbound: null,
      inboundPlain: null,
    });
  });

  it('leaves a figure null while its scenario has not run', () => {
    const summary = summarize({ send: { achievedRateRatio: 0.99, highestSecondRatio: 1 } });

    expect(summary.quotaUse).toBe(0.99);
    expect(summary.outboundCostPerMillionUsd).toBeNull();
    expect(summary.writeUnitsPerRecipient).toBeNull();
    expect(summary.maxBundleKiB).toBeNull();
    expect(summary.inboundPlainCostPerMillionUsd).toBeNull();
    expect(summary.singleRecipientQuotaUseAtDefaults).toBeNull();
    expect(summary.tenRecipientQuotaUseAtDefaults).toBeNull();
  });
});
