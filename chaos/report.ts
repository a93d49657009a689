/**
 * What the chaos run prints once it has its verdict: the items expected, the faults injected (the
 * plan's and the gateway simulator's own), events by type, the retries, the bad sends, each
 * violation (the rarer kinds first) with, under a lost report, its trail (`trail.ts`), where each
 * lost send is stuck, and the one summary line `chaos: seed=S items=N lost=L …` that closes the
 * run.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { eventKeys } from '../functions/commons/table-keys.ts';
import type { LocalBridge } from '../local/bridge.ts';
import type { Verdict } from './invariants.ts';

/** The faults the gateway simulator counted itself, named as the plan's are. */
export const gatewayFaults = (bridge: LocalBridge): Record<string, number> => {
  const snapshot = bridge.sim.snapshot();
  return {
    'gateway.rejectedSends': snapshot.rejectedSends,
    'gateway.duplicateAnswers': snapshot.duplicateRecipients,
    'gateway.reportsWithheld': snapshot.reports.withheld,
    'gateway.webhookDuplicatePosts': snapshot.reports.webhook.duplicatePosts,
    'gateway.webhookRetries': snapshot.reports.webhook.retries,
  };
};

/** Where a send without an outcome event is stuck: the gateway's ledger, the queue, the table. */
export const explainLostSends = async (
  bridge: LocalBridge,
  verdict: Verdict,
  log: (line: string) => void,
): Promise<void> => {
  const lost = verdict.violations
    .filter((v) => v.invariant === 'lost' && v.item.startsWith('send '))
    .map((v) => v.item.slice('send '.length));
  const queue = bridge.fauxqs.inspectQueue(bridge.queues.sendQueue.name);
  const dlq = bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name);
  for (const cliKey of lost.slice(0, 10)) {
    const accepted = bridge.sim.acceptances().filter((a) => a.cliKey === cliKey).length;
    const where = (
      [
        ['ready', queue?.messages.ready ?? []],
        ['delayed', queue?.messages.delayed ?? []],
        ['inflight', (queue?.messages.inflight ?? []).map((m) => m.message)],
        ['dlq', dlq?.messages.ready ?? []],
      ] as const
    )
      .flatMap(([state, messages]) =>
        messages
          .filter((m) => m.body.includes(`"${cliKey}"`))
          .map((m) => `${state} (received ${m.approximateReceiveCount} times)`),
      )
      .join(', ');
    const items = await bridge.documents
      .send(
        new QueryCommand({
          TableName: bridge.tables.events,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': eventKeys.send(cliKey) },
        }),
      )
      .then((answer) => (answer.Items ?? []).map((item) => String(item.sk)).join(', '))
      .catch((error: unknown) => `unreadable: ${String(error)}`);
    log(
      `  lost send ${cliKey}: accepted by the gateway ${accepted} time(s); queue: ${where || 'not there'}; event table SEND# items: ${items || 'none'}`,
    );
  }
};

/**
 * Prints each violation (at most 40, the rarer kinds first: a flood of duplicates must not hide a
 * lost or misreported item), with, under a lost item, the lines `trails` has for it (where a lost
 * report stopped).
 */
export const printViolations = (
  verdict: Verdict,
  log: (line: string) => void,
  trails?: ReadonlyMap<string, readonly string[]>,
): void => {
  const order = [
    'lost',
    'misreported',
    'sent twice',
    'bad send sent',
    'misattributed',
    'too big for the bus',
    'quota exceeded',
    'refused as temporary',
  ];
  const rank = (kind: string) => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const violations = [...verdict.violations].sort((a, b) => rank(a.invariant) - rank(b.invariant));
  for (const violation of violations.slice(0, 40)) {
    log(`  VIOLATION ${violation.invariant}: ${violation.item}: ${violation.detail}`);
    if (violation.invariant === 'lost')
      for (const line of trails?.get(violation.item) ?? []) log(`    ${line}`);
  }
  if (verdict.violations.length > 40) log(`  … ${verdict.violations.length - 40} more violations`);
};

/** A duration as the run prints it: `12.3 s`. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Prints the run's figures through `log`, ending with the summary line. @returns that line */
export const printReport = (input: {
  seed: number;
  items: number;
  verdict: Verdict;
  faults: Record<string, number>;
  notes: readonly string[];
  bridge: LocalBridge;
  elapsedMs: number;
  log: (line: string) => void;
  /** Lines printed under a violation, by its item: where a lost report stopped. */
  trails?: ReadonlyMap<string, readonly string[]>;
  /** A line on the reports the gateway never handed out, and how each reached the bus. */
  withheld?: string;
}): string => {
  const { verdict, log, bridge } = input;
  const list = (record: Readonly<Record<string, number>>) =>
    Object.entries(record)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => `${name}=${count}`)
      .join(' ');
  log(`  items expected: ${list(verdict.expected)}`);
  log(`  faults injected: ${list(input.faults)}`);
  log(`  events: ${list(verdict.eventsByType)}`);
  const publisher = bridge.publisher.stats;
  log(
    `  retries: stream invocations=${publisher.invocations} retried=${publisher.retries} bisections=${publisher.bisections} given-up=${publisher.recordsFailed}; ` +
      `send deliveries=${bridge.sender.stats.received} failed=${bridge.sender.stats.failed}; ` +
      `attachment stream invocations=${bridge.jobs.fetcher.stats.invocations} given-up=${bridge.jobs.fetcher.stats.recordsFailed}; ` +
      `quota refusals=${bridge.sim.snapshot().quotaRefusals}; send DLQ=${bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name)?.messages.ready.length ?? 0}`,
  );
  for (const note of input.notes.slice(0, 10)) log(`  note: ${note}`);
  if (input.withheld !== undefined) log(input.withheld);
  log(
    `  bad sends: ${verdict.rejectedOnce} of ${verdict.badSends} one Send Rejected each; the largest Send Rejected ${verdict.largestSendRejected} bytes (the bus takes 262144)`,
  );
  for (const pair of verdict.reuses)
    log(
      `  reused cliKey ${pair.cliKey}: first ${pair.first}, reuse ${pair.reuse}; sent: ${pair.sent}`,
    );
  printViolations(verdict, log, input.trails);
  const total = Object.values(input.faults).reduce((sum, count) => sum + count, 0);
  const line =
    `chaos: seed=${input.seed} items=${input.items} lost=${verdict.lost} duplicated=${verdict.duplicated} ` +
    `unavoidable=${verdict.unavoidable} sentTwice=${verdict.sentTwice} misreported=${verdict.misreported} ` +
    `quotaExceeded=${verdict.quotaExceeded} refusedAsTemporary=${verdict.refusedAsTemporary} ` +
    `badSends=${verdict.badSends} rejectedOnce=${verdict.rejectedOnce} tooBigForBus=${verdict.tooBigForBus} ` +
    `misattributed=${verdict.misattributed} badSent=${verdict.badSent} laterWon=${verdict.laterWon} ` +
    `events=${Object.values(verdict.eventsByType).reduce((sum, n) => sum + n, 0)} faults=${total} time=${seconds(input.elapsedMs)}`;
  log(line);
  return line;
};
