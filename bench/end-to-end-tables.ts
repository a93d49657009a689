/**
 * The end-to-end scenario's tables for what the cost model adds: the fixed-egress line, the
 * front doors side by side, the outbound cost without "Message Accepted" events, X-Ray at two
 * rates, and how each modelled line was reached.
 */
import { FRONTS, type Front, SUSTAINED, totalsByFront, XRAY_DEFAULT_RULE } from './cost-model.ts';
import { type Deployment, frontKey } from './deployed.ts';
import type { PhaseFigures } from './end-to-end-figures.ts';
import { type CostLine, logBreakdown, modelledLines } from './end-to-end-model.ts';
import { PRICE_REGION, PRICES } from './prices.ts';
import { DEPLOYED_REGION } from './regional-cost.ts';
import { round, type Table } from './report.ts';

export interface ModelTableInput {
  readonly outbound: PhaseFigures;
  readonly inbound: PhaseFigures;
  /** What the totals price (`deployed.ts`). */
  readonly deployment: Deployment;
  readonly outboundNat: CostLine;
  readonly inboundNat: CostLine;
  readonly outboundTotal: number;
  readonly inboundTotal: number;
  /** Inbound webhook requests per front door (with a REST stage's access log), USD per million inbound items. */
  readonly fronts: Record<Front, number>;
  /** Report webhook requests per front door, USD per million recipients. */
  readonly reportFronts: Record<Front, number>;
  readonly tracesAtBenchRate: number;
  readonly benchRate: number;
}

const FRONT_NAMES: Record<Front, string> = {
  restApi: 'REST API (+ access log)',
  httpApi: 'HTTP API',
  functionUrl: 'Lambda function URL',
};

export const modelTables = (input: ModelTableInput): Table[] => {
  const { outbound, inbound, deployment } = input;
  const { front } = deployment;
  const logsOut = logBreakdown(outbound, deployment);
  const logsIn = logBreakdown(inbound, deployment);
  /** One line of the logs table: `field` of both phases, to `digits` decimals. */
  const logRow = (label: string, field: keyof typeof logsOut, digits: number) => [
    label,
    round(logsOut[field], digits),
    round(logsIn[field], digits),
  ];
  const modelled = modelledLines(outbound, 'outbound', undefined, deployment);
  const deployed = frontKey(front);
  const inboundTotals = totalsByFront(input.inboundTotal, deployed, input.fronts);
  const traces = modelled.find((line) => line.line.startsWith('X-Ray'));
  return [
    {
      title: `end-to-end: with fixed egress (\`egress.mode: nat\`, DynamoDB and S3 through gateway endpoints), USD per 1M, ${PRICE_REGION} prices; in ${DEPLOYED_REGION}: byRegion`,
      columns: ['item', 'outbound (per recipient)', 'inbound (per item)'],
      rows: [
        [
          'NAT bytes per message',
          round(input.outboundNat.unitsPerMessage * 1024 ** 3, 0),
          round(input.inboundNat.unitsPerMessage * 1024 ** 3, 0),
        ],
        [
          'NAT data processed, USD per 1M',
          round(input.outboundNat.usdPerMillion, 4),
          round(input.inboundNat.usdPerMillion, 4),
        ],
        [
          'total with fixed egress',
          round(input.outboundTotal + input.outboundNat.usdPerMillion, 2),
          round(input.inboundTotal + input.inboundNat.usdPerMillion, 2),
        ],
      ],
    },
    {
      title: 'end-to-end: the webhook front doors priced on the same counted requests, USD per 1M',
      columns: [
        'front door',
        'report webhooks per 1M recipients',
        'inbound per 1M items',
        'inbound total',
      ],
      rows: FRONTS.map((key) => [
        `${FRONT_NAMES[key]}${key === deployed ? ' (deployed)' : ''}`,
        round(input.reportFronts[key], 4),
        round(input.fronts[key], 4),
        round(inboundTotals[key], 2),
      ]),
    },
    {
      title: `end-to-end: X-Ray traces per recipient, Lambda's rule (${XRAY_DEFAULT_RULE.reservoirPerSecond}/s + ${XRAY_DEFAULT_RULE.fixedRate * 100}% of the rest) per function that starts traces as deployed: Σ (min(r·n, 1) + 0.05·max(0, r·n − 1)) / r`,
      columns: ['rate', 'recipients/s', 'traces per recipient', 'USD per 1M recipients'],
      rows: [
        [
          'this run',
          round(input.benchRate, 1),
          round(input.tracesAtBenchRate, 4),
          round(input.tracesAtBenchRate * PRICES.xrayTraceRecorded * 1e6, 4),
        ],
        [
          'sustained (in the totals)',
          SUSTAINED.messagesPerSecond,
          round(traces?.unitsPerMessage ?? Number.NaN, 4),
          round(traces?.usdPerMillion ?? Number.NaN, 4),
        ],
      ],
    },
    {
      title:
        'end-to-end: CloudWatch Logs bytes per message (measured application lines; modelled rest)',
      columns: ['source', 'outbound B per recipient', 'inbound B per item'],
      rows: [
        logRow('application (Powertools, measured)', 'applicationBytes', 1),
        logRow('application lines', 'applicationLines', 3),
        logRow('platform lines (JSON, at each function’s system log level)', 'platformBytes', 1),
        logRow('EMF metrics (while the application log level lets INFO through)', 'emfBytes', 1),
        logRow('cold-start lines', 'coldStartBytes', 2),
        logRow(
          `API Gateway access log (${front === 'rest-api' ? 'REST API front' : 'none with function URLs'})`,
          'accessLogBytes',
          1,
        ),
        logRow('billed (+26 B per event)', 'billedBytesPerMessage', 1),
      ],
    },
  ];
};

/** How each modelled line of a phase was reached (its `basis`). */
export const basisTable = (title: string, lines: readonly CostLine[]): Table => ({
  title,
  columns: ['line', 'basis'],
  rows: lines
    .filter((line) => line.basis !== undefined)
    .map((line) => [line.line, line.basis ?? '']),
});
