/**
 * `npm run bench -- idle-month`: the month of a deployment that sends and receives nothing, per
 * egress option (`nat`, the default, with its NAT gateway; `nat-instance`), in the Region the
 * goals are judged in, and beside it the month at 1 and 10 million messages. The stack is
 * synthesized offline (`local/stack/synthesize.ts`) for each option and its billed resources
 * counted (`idle-month-inventory.ts`); the reconcile run's idle work comes from the last
 * `end-to-end` run. Nothing here is timed: the figures are counts and prices.
 */
import type { CfnTemplate } from '../aws-semantics/cloudformation-template.ts';
import { synthesizeStack } from '../local/stack/synthesize.ts';
import { logEventBytes } from './cost-model.ts';
import {
  IDLE_METRICS,
  type IdleRun,
  inventoryOf,
  metricCount,
  WORKING_METRICS,
} from './idle-month-inventory.ts';
import {
  EGRESS_OPTIONS,
  type EgressOption,
  IDLE_ASSUMPTIONS,
  type Inventory,
  idleMonth,
  monthAt,
} from './idle-month-model.ts';
import { emfLineBytes, platformLines } from './log-meter.ts';
import { HOURS_PER_MONTH } from './prices.ts';
import { DEPLOYED_REGION } from './regional-cost.ts';
import { round, type ScenarioResult } from './report.ts';

/** What the idle month reads of the last `end-to-end` run. */
interface EndToEndFigures {
  readonly outbound?: {
    readonly reconcile?: {
      readonly usdPerRun?: number;
      readonly idleRunLines?: readonly { line: string; unitsPerRun: number }[];
    };
    readonly byRegion?: Record<
      string,
      { costPerMillionUsd?: number; costPerMillionUsdWithFixedEgress?: number }
    >;
  };
}

/** An application line of `bytes` and the EMF and platform lines of one idle invocation. */
const idleLogBytes = (service: string, applicationBytes: number): number => {
  // The scheduled functions log at INFO with Lambda's platform lines at WARN (the template's
  // LoggingConfig; `deployed.ts` checks the same for the cost model): no platform line.
  const platform = platformLines('WARN');
  const emf = emfLineBytes('msgbridge', IDLE_METRICS[service] ?? []);
  return logEventBytes(
    applicationBytes + emf + platform.perInvocation,
    2 + platform.linesPerInvocation,
  );
};

/**
 * What each scheduled function does on an idle run. reconcile-status's reads are the idle run the
 * `end-to-end` scenario measured (its lines, less Lambda's, which are its time); the others are
 * modelled from their code and say so.
 */
export const idleRuns = (e2e: EndToEndFigures | undefined): Record<string, IdleRun> => {
  const measured = e2e?.outbound?.reconcile?.idleRunLines;
  const reconcileGbs = measured?.find((l) => l.line === 'Lambda GB-seconds (arm64)')?.unitsPerRun;
  const reconcile: IdleRun = measured
    ? {
        // Measured on this shared machine: an upper bound of the deployed run's time.
        msPerInvocation: ((reconcileGbs ?? 0) / (256 / 1_024)) * 1_000,
        timeBasis: 'the end-to-end idle run, local',
        unitsPerInvocation: Object.fromEntries(
          measured.filter((l) => !l.line.startsWith('Lambda ')).map((l) => [l.line, l.unitsPerRun]),
        ),
        logBytesPerInvocation: idleLogBytes('reconcile-status', 900),
      }
    : {
        // Without a measured run: the unknown outcomes' bucket of the awaiting-report index read
        // once, an eventually consistent Query of 0.5 read units, and the run's lease taken and
        // given back (a write unit each).
        msPerInvocation: 2_000,
        timeBasis: 'modelled: no end-to-end idle run recorded',
        unitsPerInvocation: {
          'DynamoDB read request units': 0.5,
          'DynamoDB write request units': 2,
        },
        logBytesPerInvocation: idleLogBytes('reconcile-status', 900),
      };
  return {
    'reconcile-status': reconcile,
    // functions/tokens: reads the token item; refreshes (a gateway call and a conditional write)
    // only near its expiry, a few times a day: left out.
    'refresh-token': {
      msPerInvocation: 300,
      timeBasis: 'modelled: one GetItem, no refresh',
      unitsPerInvocation: { 'DynamoDB read request units': 1, 'KMS requests': 1 },
      logBytesPerInvocation: idleLogBytes('refresh-token', 300),
    },
    // functions/attachments: one Query of the pending attachments, none due at idle.
    'sweep-attachments': {
      msPerInvocation: 200,
      timeBasis: 'modelled: one empty Query',
      unitsPerInvocation: { 'DynamoDB read request units': 0.5 },
      logBytesPerInvocation: idleLogBytes('sweep-attachments', 250),
    },
  };
};

/** The template of an egress option; `undefined` when the stack cannot build it yet. */
const templateOf = (option: EgressOption): { template?: CfnTemplate; problem?: string } => {
  if (option === 'natGateway') return { template: synthesizeStack().template };
  try {
    return {
      template: synthesizeStack({ settings: { egress: { mode: 'nat-instance' } } }).template,
    };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
};

/**
 * The months with messages: 1 and 10 million, of 10-recipient (`outbound`) and of 1-recipient
 * (`outboundSingleRecipient`) messages; their figures are named `<workload><millions>M`.
 */
const MESSAGE_MONTHS = [
  ['1M recipients, messages of 10', 1e6, 'outbound'],
  ['10M recipients, messages of 10', 1e7, 'outbound'],
  ['1M messages of 1 recipient', 1e6, 'outboundSingleRecipient'],
  ['10M messages of 1 recipient', 1e7, 'outboundSingleRecipient'],
] as const;

/**
 * The NAT instance's inventory from the NAT gateway's, for a stack that cannot synthesize the
 * mode: one instance with an 8 GB volume and one Elastic IP instead of the NAT gateway and its,
 * and the two EC2 status-check alarms that recover and reboot it.
 */
export const modelledNatInstance = (natGateway: Inventory): Inventory => ({
  ...natGateway,
  natGateways: 0,
  natInstances: 1,
  natInstanceVolumeGb: 8,
  publicIpv4Addresses: 1,
  alarms: natGateway.alarms + 2,
  alarmMetrics: natGateway.alarmMetrics + 2,
});

export const runIdleMonth = async (
  scenarios: Readonly<Record<string, unknown>>,
): Promise<ScenarioResult> => {
  const e2e = scenarios['end-to-end'] as EndToEndFigures | undefined;
  const single = scenarios['end-to-end-single'] as EndToEndFigures | undefined;
  const runs = idleRuns(e2e);
  const natGatewayTemplate = templateOf('natGateway').template as CfnTemplate;
  const natGateway = inventoryOf(natGatewayTemplate, runs);
  const instance = templateOf('natInstance');
  const natInstance = instance.template
    ? inventoryOf(instance.template, runs)
    : modelledNatInstance(natGateway);
  const inventories: Record<EgressOption, Inventory> = { natGateway, natInstance };
  const month = idleMonth(inventories, DEPLOYED_REGION);
  // Per million in the Region, storage included; with the NAT gateway also its data processing
  // (a NAT instance has no per-GB charge of its own).
  const inRegion = (figures: EndToEndFigures | undefined, option: EgressOption) => {
    const region = figures?.outbound?.byRegion?.[DEPLOYED_REGION];
    return (
      (option === 'natGateway' ? region?.costPerMillionUsdWithFixedEgress : undefined) ??
      region?.costPerMillionUsd ??
      null
    );
  };
  const perMillion = Object.fromEntries(
    EGRESS_OPTIONS.map((option) => [
      option,
      { outbound: inRegion(e2e, option), outboundSingleRecipient: inRegion(single, option) },
    ]),
  ) as Record<EgressOption, Record<'outbound' | 'outboundSingleRecipient', number | null>>;
  const at = (
    option: EgressOption,
    messages: number,
    path: 'outbound' | 'outboundSingleRecipient',
  ) => {
    const cost = perMillion[option][path];
    return cost === null ? null : round(monthAt(month[option].totalUsd, cost, messages), 2);
  };
  const figures = {
    region: DEPLOYED_REGION,
    hoursPerMonth: HOURS_PER_MONTH,
    idleMonthlyUsd: {
      natGateway: round(month.natGateway.totalUsd, 2),
      natInstance: round(month.natInstance.totalUsd, 2),
    },
    // The same with an account's always-free allowances left for this stack (a fresh account).
    idleMonthlyUsdAfterFreeTier: {
      natGateway: round(month.natGateway.totalUsdAfterFreeTier, 2),
      natInstance: round(month.natInstance.totalUsdAfterFreeTier, 2),
    },
    natInstanceFrom: instance.template
      ? 'the synthesized template (egress.mode: nat-instance)'
      : `modelled from the nat template (nat-instance did not synthesize: ${instance.problem})`,
    customMetrics: {
      idle: metricCount(IDLE_METRICS),
      working: metricCount(IDLE_METRICS) + metricCount(WORKING_METRICS),
      workingMonthlyUsdExtra: round(metricCount(WORKING_METRICS) * 0.3, 2),
    },
    // The month at 1 and 10 million 10-recipient and 1-recipient messages: the idle month plus
    // `end-to-end`'s and `end-to-end-single`'s cost per million in the Region, storage included.
    monthAtMessages: Object.fromEntries(
      EGRESS_OPTIONS.map((option) => [
        option,
        Object.fromEntries(
          MESSAGE_MONTHS.map(([, messages, workload]) => [
            `${workload}${messages / 1e6}M`,
            at(option, messages, workload),
          ]),
        ),
      ]),
    ),
    perMillionUsedUsd: perMillion,
    assumptions: IDLE_ASSUMPTIONS,
    inventory: inventories,
    lines: Object.fromEntries(
      EGRESS_OPTIONS.map((option) => [
        option,
        month[option].lines.map((line) => ({
          ...line,
          usdPerMonth: round(line.usdPerMonth, 4),
          quantity: round(line.quantity, 6),
        })),
      ]),
    ),
  };
  return {
    figures,
    tables: [
      {
        title: `idle-month: a month without messages, USD, ${DEPLOYED_REGION}, list prices, no free tier`,
        columns: ['line', 'nat (NAT gateway)', 'nat-instance', 'basis (nat-instance)'],
        rows: [
          ...month.natGateway.lines.map((line, index) => {
            const other = month.natInstance.lines[index];
            return [
              line.line,
              round(line.usdPerMonth, 3),
              round(other?.usdPerMonth ?? 0, 3),
              other?.basis ?? '',
            ];
          }),
          [
            'total',
            round(month.natGateway.totalUsd, 2),
            round(month.natInstance.totalUsd, 2),
            figures.natInstanceFrom,
          ],
          [
            "total with the account's always-free allowances",
            round(month.natGateway.totalUsdAfterFreeTier, 2),
            round(month.natInstance.totalUsdAfterFreeTier, 2),
            'if no other workload of the account uses them',
          ],
        ],
      },
      {
        title: 'idle-month: the month with messages (idle month + cost per million in the Region)',
        columns: ['a month of', 'nat', 'nat-instance'],
        rows: MESSAGE_MONTHS.map(([label, messages, workload]) => [
          label,
          at('natGateway', messages, workload) ?? '–',
          at('natInstance', messages, workload) ?? '–',
        ]),
      },
    ],
  };
};
