/*
 * What the end of a chaos run finds for one report the run calls lost, outside the steps its trail
 * recorded (`trail.ts`): the gateway's side, the event table, the queues and their DLQs, the bus;
 * and where the report's way stopped.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { eventKeys, SORT_KEY } from '../functions/commons/table-keys.ts';
import type { BusEntry } from '../functions/publishing/ports.ts';
import type { LocalBridge } from '../local/bridge.ts';

/** What the end of the run found for one report, outside the recorded steps. */
export interface ReportState {
  /** The gateway's side: the acceptance, the report it made. */
  readonly gateway: string;
  /** Items of the event table, one line per partition. */
  readonly table: readonly string[];
  /** Report checks naming the recipient on the report-check queue and its DLQ. */
  readonly queue: readonly string[];
  /** Events of the report or its recipient on the bus, and what the publisher gave up on. */
  readonly bus: string;
  /** Facts the verdict line reads. */
  readonly stored: boolean;
  readonly published: boolean;
  readonly checkQueued: boolean;
  readonly checkInDlq: boolean;
  readonly unknownOpen: boolean;
  /** A send message naming the recipient is in the send DLQ, and one still in the send queue. */
  readonly sendInDlq: boolean;
  readonly sendQueued: boolean;
}

/** A queue message id as the trail prints it: its first 8 characters. */
export const short = (id: string | undefined) => (id ?? '?').slice(0, 8);

/** Where the report's way ended, from the state and the steps. */
export const stoppedAt = (
  state: ReportState,
  seen: {
    readonly queued: boolean;
    readonly asked: readonly string[];
    readonly handedOut: boolean;
  },
): string => {
  if (state.published) return 'nowhere: it is on the bus';
  if (state.stored) return 'stored in the event table, not on the bus (the publisher)';
  if (state.checkInDlq) return 'its report check is in the report-check DLQ';
  if (state.checkQueued) return 'its report check is still on the queue: pending, not yet asked';
  if (state.unknownOpen)
    return 'its send ended as an unknown outcome that no reconcile-status run has resolved yet: no report check is queued until one does';
  if (!seen.queued && state.sendQueued)
    return 'its send message is still on the send queue, its acceptance not yet recorded: no report check until a delivery records it';
  if (!seen.queued && state.sendInDlq)
    return 'its send message is in the send DLQ and no delivery recorded the acceptance or an unknown outcome: no report check until the DLQ is redriven';
  if (!seen.queued)
    return seen.handedOut
      ? 'handed out by the gateway, never stored, and no report check was queued'
      : 'no report check was ever queued for its recipient';
  const done = seen.asked.filter((text) => text.includes(' DONE '));
  if (done.length > 0)
    return `the status query answered DONE (${done.length} times), nothing was stored`;
  if (seen.asked.length > 0)
    return `its check is gone; the status query never answered DONE (last: ${seen.asked.at(-1)})`;
  return 'its check is gone without a status query answer about it';
};

/** What the simulator, the event table, the queues and the bus hold for a report now. */
export const reportState = async (
  bridge: LocalBridge,
  msgKey: string,
  startedAt: number,
): Promise<ReportState> => {
  const when = (at: number) => `+${((at - startedAt) / 1000).toFixed(1)} s`;
  const acceptance = bridge.sim.acceptances().find((a) => a.msgKey === msgKey);
  const cliKey = acceptance?.cliKey;
  const gateway = acceptance
    ? `accepted cliKey ${acceptance.cliKey} at ${when(acceptance.requestedAt)} (${bridge.sim.acceptances().filter((a) => a.cliKey === acceptance.cliKey).length} acceptance(s)); status ${acceptance.status}` +
      (acceptance.result
        ? `, report ${acceptance.result.resultCode} (${acceptance.result.ch}) made at ${when(acceptance.result.reportedAt)}`
        : ', no report yet')
    : 'no acceptance with this msgKey (an item posted straight to the route)';
  const query = async (pk: string) =>
    (
      await bridge.documents.send(
        new QueryCommand({
          TableName: bridge.tables.events,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const reportItems = await query(eventKeys.report(msgKey));
  const describeReport = (item: Record<string, unknown>) => {
    if (item.reportGuardOf !== undefined)
      return `${String(item.sk)} (guard of ${String(item.reportGuardOf)})`;
    const via = (() => {
      try {
        return (JSON.parse(String(item.detail)) as { metadata?: { via?: string } }).metadata?.via;
      } catch {
        return undefined;
      }
    })();
    return `${String(item.sk)} (${String(item.detailType ?? 'no detailType')}${via ? ` via ${via}` : ''})`;
  };
  const table = [
    `${eventKeys.report(msgKey)}: ${reportItems.map(describeReport).join(', ') || 'nothing'}`,
  ];
  let unknownOpen = false;
  if (cliKey !== undefined) {
    const sendItems = await query(eventKeys.send(cliKey));
    table.push(
      `${eventKeys.send(cliKey)}: ${
        sendItems
          .map((item) => {
            if (item.sk === SORT_KEY.unknown) {
              const open = item.awaitingReportBucket !== undefined;
              unknownOpen ||= open;
              return `${SORT_KEY.unknown} (${String(item.code)}: ${String(item.message).slice(0, 100)}; ${open ? 'unresolved' : `resolved ${String(item.resolvedAt ?? '')}`})`;
            }
            if (item.sk === SORT_KEY.sendRecord)
              return `${SORT_KEY.sendRecord} (lists the acceptance: ${`accepted#${cliKey}` in item ? 'yes' : 'no'})`;
            return `${String(item.sk)}${item.detailType ? ` (${String(item.detailType)})` : ''}`;
          })
          .join(', ') || 'nothing'
      }`,
    );
    const unavailable = await bridge.documents.send(
      new GetCommand({
        TableName: bridge.tables.events,
        Key: eventKeys.statusUnavailable(cliKey),
        ConsistentRead: true,
      }),
    );
    table.push(
      `${eventKeys.statusUnavailable(cliKey).pk}: ${unavailable.Item ? 'Message Status Unavailable stored' : 'nothing'}`,
    );
  }
  const naming = (body: string) => cliKey !== undefined && body.includes(`"cliKey":"${cliKey}"`);
  const main = bridge.fauxqs.inspectQueue(bridge.queues.reportChecks.name);
  const dlq = bridge.fauxqs.inspectQueue(bridge.queues.reportCheckDlq.name);
  const onQueue = [
    ...(main?.messages.ready ?? [])
      .filter((m) => naming(m.body))
      .map((m) => ({ m, where: 'ready' })),
    ...(main?.messages.delayed ?? [])
      .filter((m) => naming(m.body))
      .map((m) => ({ m, where: `delayed until ${when(m.delayUntil ?? 0)}` })),
    ...(main?.messages.inflight ?? [])
      .filter((e) => naming(e.message.body))
      .map((e) => ({ m: e.message, where: `in flight until ${when(e.visibilityDeadline)}` })),
  ];
  const inDlq = [
    ...(dlq?.messages.ready ?? []),
    ...(dlq?.messages.delayed ?? []),
    ...(dlq?.messages.inflight ?? []).map((e) => e.message),
  ].filter((m) => naming(m.body));
  const queue = [
    `report-check queue: ${onQueue.map(({ m, where }) => `check ${short(m.messageId)} ${where} (received ${m.approximateReceiveCount} times)`).join(', ') || 'nothing naming it'}`,
    `report-check DLQ: ${inDlq.map((m) => `check ${short(m.messageId)} (received ${m.approximateReceiveCount} times)`).join(', ') || 'nothing naming it'}`,
  ];
  const sends = bridge.fauxqs.inspectQueue(bridge.queues.sendQueue.name);
  const sendDlq = bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name);
  const sendsQueued = [
    ...(sends?.messages.ready ?? []),
    ...(sends?.messages.delayed ?? []),
    ...(sends?.messages.inflight ?? []).map((e) => e.message),
  ].filter((m) => naming(m.body));
  const sendsInDlq = (sendDlq?.messages.ready ?? []).filter((m) => naming(m.body));
  queue.push(
    `send queue: ${sendsQueued.map((m) => `message ${short(m.messageId)} (received ${m.approximateReceiveCount} times)`).join(', ') || 'nothing naming it'}`,
    `send DLQ: ${sendsInDlq.map((m) => `message ${short(m.messageId)} (received ${m.approximateReceiveCount} times)`).join(', ') || 'nothing naming it'}`,
  );
  const events = bridge.bus.entries.filter((entry: BusEntry) => {
    const data = (JSON.parse(entry.Detail) as { data?: { msgKey?: unknown; cliKey?: unknown } })
      .data;
    return data?.msgKey === msgKey || (cliKey !== undefined && data?.cliKey === cliKey);
  });
  const published = events.some((entry) => {
    const data = (JSON.parse(entry.Detail) as { data?: { msgKey?: unknown } }).data;
    return entry.DetailType === 'Delivery Report Received' && data?.msgKey === msgKey;
  });
  const bus =
    `${events.map((entry) => entry.DetailType).join(', ') || 'no event of the report or its recipient'}; ` +
    `the publisher gave up on ${bridge.publisher.stats.recordsFailed} stream records, ${bridge.publisherFailureCount()} in its on-failure queue`;
  return {
    gateway,
    table,
    queue,
    bus,
    stored: reportItems.some((item) => item.reportGuardOf === undefined),
    published,
    checkQueued: onQueue.length > 0,
    checkInDlq: inDlq.length > 0,
    unknownOpen,
    sendInDlq: sendsInDlq.length > 0,
    sendQueued: sendsQueued.length > 0,
  };
};
