/**
 * The end-to-end scenario's report, from what a run measured: the reconcile work per recipient
 * (the due and not-due runs less the idle run's fixed work), the cost of each path at list prices
 * (counted lines from `end-to-end-figures.ts`, modelled ones from `end-to-end-model.ts`) and in
 * each Region with storage for the stack's retentions (`regional-cost.ts`), what each path leaves
 * stored, the figures written to `bench/results.json` and the tables printed.
 */
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import type { LocalBridge } from '../local/bridge.ts';
import { sumWhere } from './call-counter.ts';
import { GB, SUSTAINED, totalsByFront, xrayTracesPerMessage } from './cost-model.ts';
import { type Deployment, frontKey, tracesOwnInvocations } from './deployed.ts';
import {
  callsTable,
  costLines,
  costTable,
  isKey,
  lambdaTable,
  type PhaseFigures,
  roundCalls,
  roundCost,
} from './end-to-end-figures.ts';
import {
  frontDoors,
  logBreakdown,
  modelledLines,
  natLine,
  natPerMillionInRegion,
  reconcileFixedLine,
  reconcileLogLine,
} from './end-to-end-model.ts';
import { basisTable, modelTables } from './end-to-end-tables.ts';
import type { EventWatch } from './end-to-end-watch.ts';
import { INBOUND_MESSAGES, INBOUND_WITH_ATTACHMENT } from './end-to-end-workload.ts';
import { PRICE_REGION, PRICES, PRICES_AS_OF } from './prices.ts';
import { type LineCost, REGIONS, regionalCost } from './regional-cost.ts';
import { ratio, round, type ScenarioResult } from './report.ts';
import type { TableBytes } from './storage-meter.ts';
import { trafficBeyond } from './traffic.ts';

/** What one run of the scenario measured. */
export interface EndToEndRun {
  readonly recipientsPerMessage: number;
  /** The outbound phase's queue messages. */
  readonly messages: readonly SendMessageInput[];
  /** The deployment choice `sending.acceptedEvents`. */
  readonly acceptedEvents: boolean;
  /** The simulator's TPS quota. */
  readonly tpsQuota: number;
  /** What the totals price: the stack as `cdk.json` deploys it (`deployed.ts`). */
  readonly deployment: Deployment;
  /** The cold-start scenario's import time per function, for the INIT line. */
  readonly importMs?: Readonly<Record<string, number>> | undefined;
  /** The events the bus was given during the run. */
  readonly events: EventWatch;
  readonly outbound: PhaseFigures;
  /** Seconds from the first enqueue to the last queue message sent, "Message Accepted" event and delivery event. */
  readonly outboundSeconds: {
    readonly sent: number;
    readonly accepted: number;
    readonly delivered: number;
  };
  /** reconcile-status's runs, each counted as one message: idle (its fixed work), not due, due. */
  readonly reconcile: {
    readonly idleRun: Awaited<ReturnType<LocalBridge['jobs']['reconcileAt']>>;
    readonly idle: PhaseFigures;
    readonly notDue: PhaseFigures;
    readonly due: PhaseFigures;
  };
  /** The goal's inbound workload (1 in 10 with an attachment). */
  readonly inbound: PhaseFigures;
  /** As many inbound items, none with an attachment. */
  readonly inboundPlain: PhaseFigures;
  /** The event table's bytes before and after each phase, and the attachments the mixed phase stored. */
  readonly stored: {
    readonly before: TableBytes;
    readonly afterOutbound: TableBytes;
    readonly afterMixed: TableBytes;
    readonly afterPlain: TableBytes;
    readonly attachmentBytes: number;
  };
}

const roundStored = (stored: { readonly dynamoDbBytes: number; readonly s3Bytes: number }) => ({
  dynamoDbBytes: Math.round(stored.dynamoDbBytes),
  s3Bytes: Math.round(stored.s3Bytes),
});

const roundFronts = (fronts: Record<string, number>, digits = 4) =>
  Object.fromEntries(Object.entries(fronts).map(([front, usd]) => [front, round(usd, digits)]));

/**
 * reconcile-status's cost lines: per recipient, what the not-due and the due run did beyond the
 * idle run's fixed work (key by key, never below zero), its log lines, and the fixed work of a run
 * spread over the recipients.
 */
const reconcileLines = (
  reconcile: EndToEndRun['reconcile'],
  recipients: number,
  deployment: Deployment,
) => {
  const { front } = deployment;
  // One run's figures (messages = 1): the fixed run, and the two runs over the checks.
  const idleLines = costLines(reconcile.idle, front);
  const runLines = [costLines(reconcile.notDue, front), costLines(reconcile.due, front)];
  const perRecipient = (runLines[1] ?? [])
    .map((line, index) => {
      const units = runLines.reduce(
        (sum, lines) =>
          sum + Math.max(0, (lines[index]?.units ?? 0) - (idleLines[index]?.units ?? 0)),
        0,
      );
      return {
        ...line,
        line: `reconcile: ${line.line}`,
        units,
        unitsPerMessage: units / recipients,
        usdPerMillion: (units / recipients) * line.unitPrice * 1e6,
      };
    })
    .filter((line) => line.units > 0);
  const usdPerRun = idleLines.reduce((sum, line) => sum + line.usdPerMillion / 1e6, 0);
  const fixed = reconcileFixedLine(usdPerRun, recipients);
  const duePhase = { ...reconcile.due, messages: recipients };
  perRecipient.push(reconcileLogLine(duePhase, deployment));
  return { idleLines, perRecipient, fixed, usdPerRun, duePhase };
};

/** Bytes of CloudWatch Logs a message ingests, from its cost lines. */
const logBytesOf = (lines: readonly LineCost[]) =>
  lines
    .filter((line) => line.line.endsWith('CloudWatch Logs ingested (GB)'))
    .reduce((sum, line) => sum + line.unitsPerMessage * GB, 0);

/**
 * A path priced in each Region, storage for the stack's retentions included, and with `nat` its
 * NAT data processing at the Region's price.
 */
const byRegion = (
  deployment: Deployment,
  lines: readonly LineCost[],
  phase: { readonly eventBytes: number; readonly messages: number },
  stored: { readonly dynamoDbBytes: number; readonly s3Bytes: number },
  nat?: { readonly unitsPerMessage: number },
) =>
  Object.fromEntries(
    REGIONS.map((region) => {
      const cost = regionalCost(
        lines,
        {
          ...stored,
          archiveBytes: phase.eventBytes / phase.messages,
          logBytes: logBytesOf(lines),
        },
        deployment.retentions,
        region,
      );
      return [
        region,
        {
          costPerMillionUsd: round(cost.costPerMillionUsd, 2),
          runningCostPerMillionUsd: round(cost.runningCostPerMillionUsd, 2),
          storageCostPerMillionUsd: round(cost.storageCostPerMillionUsd, 2),
          floorPerMillionUsd: round(cost.floorPerMillionUsd, 2),
          ratioToFloor: round(cost.ratioToFloor, 2),
          runningRatioToFloor: round(cost.runningRatioToFloor, 2),
          // The NAT's data processing at this Region's price (`egress.mode: nat`), apart from
          // the total as `costPerMillionUsdWithFixedEgress` adds it.
          ...(nat
            ? {
                natDataPerMillionUsd: round(natPerMillionInRegion(nat, region), 4),
                costPerMillionUsdWithFixedEgress: round(
                  cost.costPerMillionUsd + natPerMillionInRegion(nat, region),
                  2,
                ),
              }
            : {}),
          storage: cost.storage.map((line) => ({
            line: line.line,
            unitsPerMessage: line.unitsPerMessage,
            usdPerMillionMessages: round(line.usdPerMillion, 4),
            basis: line.basis,
          })),
        },
      ];
    }),
  );

/** The figures and tables of one run. */
export const endToEndReport = (run: EndToEndRun): ScenarioResult => {
  const { recipientsPerMessage, messages, acceptedEvents, deployment, importMs, events } = run;
  const { outbound, inbound: inboundFigures, inboundPlain: plainFigures, reconcile } = run;
  const { front } = deployment;
  const recipients = messages.length * recipientsPerMessage;
  const {
    sent: sentSeconds,
    accepted: acceptSeconds,
    delivered: outboundSeconds,
  } = run.outboundSeconds;
  const {
    before: storedBefore,
    afterOutbound: storedAfterOutbound,
    afterMixed: storedAfterMixed,
    afterPlain: storedAfterPlain,
    attachmentBytes,
  } = run.stored;
  const idleRun = reconcile.idleRun;
  const {
    idleLines,
    perRecipient: reconcilePerRecipient,
    fixed: reconcileFixed,
    usdPerRun: reconcileUsdPerRun,
    duePhase,
  } = reconcileLines(reconcile, recipients, deployment);
  const reconcileGatewayCalls = sumWhere(duePhase.calls, isKey('gateway '));

  const outboundCost = [
    ...costLines(outbound, front),
    ...reconcilePerRecipient,
    reconcileFixed,
    ...modelledLines(outbound, 'outbound', importMs, deployment),
  ];
  const zero = <L extends { units: number; unitsPerMessage: number; usdPerMillion: number }>(
    line: L,
  ): L => ({ ...line, units: 0, unitsPerMessage: 0, usdPerMillion: 0 });
  const inboundCostOf = (phase: typeof inboundFigures) => [
    ...costLines(phase, front),
    ...reconcilePerRecipient.map(zero),
    zero(reconcileFixed),
    ...modelledLines(phase, 'inbound', importMs, deployment),
  ];
  const inboundCost = inboundCostOf(inboundFigures);
  const plainCost = inboundCostOf(plainFigures);
  // The reconcile runs' traffic beyond their fixed part, as their cost lines count it: the not-due
  // and the due run each less the idle run, key by key, never below zero.
  const outboundNat = natLine(outbound, [
    trafficBeyond([reconcile.notDue.traffic, duePhase.traffic], reconcile.idle.traffic),
  ]);
  const inboundNat = natLine(inboundFigures);
  const fronts = frontDoors(inboundFigures, logBreakdown(inboundFigures, deployment));
  const reportFronts = frontDoors(outbound, logBreakdown(outbound, deployment));
  const total = (lines: readonly { usdPerMillion: number }[]) =>
    lines.reduce((sum, line) => sum + line.usdPerMillion, 0);
  const accepted = outbound.eventsByType['Message Accepted'] ?? { events: 0, bytes: 0 };
  const outboundTotal = total(outboundCost);
  const inboundTotal = total(inboundCost);
  const plainTotal = total(plainCost);
  const benchRate = outbound.messages / outboundSeconds;
  const tracesAt = (rate: number) =>
    xrayTracesPerMessage(
      Object.entries(outbound.lambda)
        .filter(([name]) => tracesOwnInvocations(deployment, name))
        .map(([, l]) => l.invocations / outbound.messages),
      rate,
    );
  const storedPerMessage = {
    outbound: {
      dynamoDbBytes: (storedAfterOutbound.outbound - storedBefore.outbound) / outbound.messages,
      s3Bytes: 0,
    },
    inbound: {
      dynamoDbBytes:
        (storedAfterMixed.inbound - storedAfterOutbound.inbound) / inboundFigures.messages,
      s3Bytes: attachmentBytes / inboundFigures.messages,
    },
    inboundPlain: {
      dynamoDbBytes: (storedAfterPlain.inbound - storedAfterMixed.inbound) / plainFigures.messages,
      s3Bytes: 0,
    },
  };
  const putEventsCalls = sumWhere(outbound.calls, isKey('EventBridge PutEvents'));
  const sends = outbound.simulator.sends + outbound.simulator.rejectedSends;
  const figures = {
    workload: {
      queueMessages: messages.length,
      recipients,
      recipientsPerMessage,
      channels: [...new Set(messages.map((m) => m.channel))],
      inboundMessages: INBOUND_MESSAGES,
      inboundAttachments: INBOUND_WITH_ATTACHMENT,
      tpsQuota: run.tpsQuota,
    },
    /** What the totals price: the stack as `cdk.json` deploys it (`deployed.ts`). */
    deployment,
    outbound: {
      deliveryEvents: outbound.messages,
      duplicateDeliveryEvents: events.count('Delivery Report Received') - events.reportedKeys.size,
      accepted: events.count('Message Accepted'),
      rejected: events.count('Message Rejected'),
      secondsToLastQueueMessageSent: round(sentSeconds, 2),
      secondsToLastAcceptedEvent: round(acceptSeconds, 2),
      secondsToLastDeliveryEvent: round(outboundSeconds, 2),
      recipientsPerSecondSent: round(recipients / sentSeconds, 1),
      recipientsPerSecondToDeliveryEvent: round(outbound.messages / outboundSeconds, 1),
      putEventsCallsPerEvent: ratio(putEventsCalls, outbound.events),
      gatewaySendCallsPerRecipient: ratio(sends, outbound.messages),
      gatewayCallsPerRecipient: ratio(
        sumWhere(outbound.calls, isKey('gateway ')),
        outbound.messages,
      ),
      simulator: outbound.simulator,
      lambda: outbound.lambda,
      calls: roundCalls(outbound.calls),
      costPerMillionUsd: round(outboundTotal, 2),
      costPerMillionUsdWithFixedEgress: round(outboundTotal + outboundNat.usdPerMillion, 2),
      storedBytesPerMessage: roundStored(storedPerMessage.outbound),
      byRegion: byRegion(
        deployment,
        outboundCost,
        outbound,
        storedPerMessage.outbound,
        outboundNat,
      ),
      acceptedEventsPublished: acceptedEvents,
      acceptedEvents: accepted,
      reportWebhookCostPerMillionUsdByFront: roundFronts(reportFronts),
      costPerMillionUsdByFront: roundFronts(
        totalsByFront(outboundTotal, frontKey(front), reportFronts),
        2,
      ),
      reconcile: {
        idleRun,
        // Invocations of the check queue's event source in each phase.
        checkInvocations: {
          notDue: reconcile.notDue.lambda['reconcile-status'].invocations,
          due: reconcile.due.lambda['reconcile-status'].invocations,
        },
        usdPerRun: reconcileUsdPerRun,
        // The idle run's billed units, for the idle month to price in any Region.
        idleRunLines: idleLines
          .filter((line) => line.units > 0)
          .map((line) => ({ line: line.line, unitsPerRun: line.units })),
        gatewayCallsPerRecipient: ratio(reconcileGatewayCalls, outbound.messages),
        costPerMillionUsd: round(total([...reconcilePerRecipient, reconcileFixed]), 4),
      },
      logs: outbound.logs,
      traffic: outbound.traffic,
      nat: roundCost(outboundNat),
      xray: {
        benchRecipientsPerSecond: round(benchRate, 1),
        tracesPerRecipientAtBenchRate: round(tracesAt(benchRate), 5),
        sustainedRecipientsPerSecond: SUSTAINED.messagesPerSecond,
        tracesPerRecipientSustained: round(tracesAt(SUSTAINED.messagesPerSecond), 5),
      },
      assumptions: SUSTAINED,
      cost: outboundCost.map(roundCost),
    },
    inbound: {
      inboundEvents: inboundFigures.messages,
      attachmentEvents: events.count('Inbound Attachment Stored'),
      simulator: inboundFigures.simulator,
      lambda: inboundFigures.lambda,
      calls: roundCalls(inboundFigures.calls),
      costPerMillionUsd: round(inboundTotal, 2),
      costPerMillionUsdWithFixedEgress: round(inboundTotal + inboundNat.usdPerMillion, 2),
      storedBytesPerMessage: roundStored(storedPerMessage.inbound),
      byRegion: byRegion(
        deployment,
        inboundCost,
        inboundFigures,
        storedPerMessage.inbound,
        inboundNat,
      ),
      costPerMillionUsdByFront: roundFronts(
        totalsByFront(inboundTotal, frontKey(front), fronts),
        2,
      ),
      webhookCostPerMillionUsdByFront: roundFronts(fronts),
      logs: inboundFigures.logs,
      traffic: inboundFigures.traffic,
      nat: roundCost(inboundNat),
      cost: inboundCost.map(roundCost),
    },
    /** The same number of inbound items, none with an attachment, counted in a phase of their own. */
    inboundPlain: {
      inboundEvents: plainFigures.messages,
      lambda: plainFigures.lambda,
      calls: roundCalls(plainFigures.calls),
      costPerMillionUsd: round(plainTotal, 2),
      storedBytesPerMessage: roundStored(storedPerMessage.inboundPlain),
      byRegion: byRegion(deployment, plainCost, plainFigures, storedPerMessage.inboundPlain),
      logs: plainFigures.logs,
      cost: plainCost.map(roundCost),
    },
    prices: { asOf: PRICES_AS_OF, region: PRICE_REGION, ...PRICES },
    retentions: deployment.retentions,
  };

  return {
    figures,
    tables: [
      {
        title: 'end-to-end: workload and throughput (one run; times are for context)',
        columns: ['figure', 'value'],
        rows: [
          ['queue messages × recipients', `${messages.length} × ${recipientsPerMessage}`],
          ['recipients with a delivery event', String(outbound.messages)],
          [
            'second delivery events for a recipient',
            String(events.count('Delivery Report Received') - events.reportedKeys.size),
          ],
          [
            'inbound messages (with attachment)',
            `${inboundFigures.messages} (${INBOUND_WITH_ATTACHMENT})`,
          ],
          ['simulator TPS quota', String(run.tpsQuota)],
          ['s from first enqueue to last queue message sent', String(round(sentSeconds, 2))],
          ...(acceptedEvents
            ? [
                [
                  's from first enqueue to last "Message Accepted" event',
                  String(round(acceptSeconds, 2)),
                ],
              ]
            : []),
          ['s from first enqueue to last delivery event', String(round(outboundSeconds, 2))],
          ['recipients/s through send-messages', String(round(recipients / sentSeconds, 1))],
          [
            'recipients/s to their delivery event',
            String(round(outbound.messages / outboundSeconds, 1)),
          ],
          ['PutEvents calls per event (outbound)', String(ratio(putEventsCalls, outbound.events))],
          ['gateway send calls per recipient', String(ratio(sends, outbound.messages))],
        ],
      },
      callsTable(outbound, inboundFigures),
      lambdaTable(outbound, inboundFigures),
      costTable(outboundCost, inboundCost, total),
      {
        title: `end-to-end: inbound, USD per 1M items: ${INBOUND_WITH_ATTACHMENT} in ${INBOUND_MESSAGES} with an attachment (the goal's workload), and ${INBOUND_MESSAGES} plain items in a phase of their own`,
        columns: ['billed item', 'mixed', 'plain'],
        rows: [
          ...inboundCost
            .map((line, index) => [line, plainCost[index]] as const)
            .filter(([line, other]) => line.usdPerMillion > 0 || (other?.usdPerMillion ?? 0) > 0)
            .map(([line, other]) => [
              line.line,
              round(line.usdPerMillion, 4),
              round(other?.usdPerMillion ?? 0, 4),
            ]),
          ['total', round(inboundTotal, 2), round(plainTotal, 2)],
        ],
      },
      ...modelTables({
        outbound,
        inbound: inboundFigures,
        deployment,
        outboundNat,
        inboundNat,
        outboundTotal,
        inboundTotal,
        fronts,
        reportFronts,
        tracesAtBenchRate: tracesAt(benchRate),
        benchRate,
      }),
      basisTable('end-to-end: how the modelled outbound lines are reached', outboundCost),
      basisTable(
        'end-to-end: how the modelled inbound lines are reached',
        inboundCost.filter((line) => !line.line.startsWith('reconcile: ')),
      ),
    ],
  };
};
