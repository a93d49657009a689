/**
 * `npm run bench [-- SCENARIO…]`: runs the benchmark scenarios in order (all of them, or those
 * named), prints a table per scenario and writes every figure to `bench/results.json`, keyed by
 * scenario, with a top-level `summary` of the figures the goals are judged by (`summary.ts`). Running some scenarios replaces their entries and keeps the others'. Figures are
 * counts and ratios from one run; absolute times are printed for context only (the machines are
 * shared and noisy). See `docs/performance.md`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli.ts';
import { runColdStart } from './cold-start.ts';
import { runConsoleMemory } from './console-memory.ts';
import { runEndToEnd } from './end-to-end.ts';
import { runIdleMonth } from './idle-month.ts';
import { runIngest } from './ingest.ts';
import { runLatency } from './latency.ts';
import { formatTable, type ScenarioResult } from './report.ts';
import { runScale } from './scale.ts';
import { runSend } from './send.ts';
import { runSendDefaults } from './send-defaults.ts';
import { summarize } from './summary.ts';

// The pinned SDK warns on Node 20 that its releases after January 2027 will need Node 22; it says
// nothing about the code measured here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The cold-start scenario's import time per function, for the end-to-end scenarios' INIT line:
 * from this run when it ran first (it does, in the default order), else from the results file.
 */
const importMsOf = (): Record<string, number> | undefined => {
  const cold = results.scenarios['cold-start'] as
    | { lambdas?: Record<string, { importMs?: number }> }
    | undefined;
  if (!cold?.lambdas) return undefined;
  return Object.fromEntries(
    Object.entries(cold.lambdas).map(([name, figures]) => [name, figures.importMs ?? Number.NaN]),
  );
};

const scenarios: Record<string, () => Promise<ScenarioResult>> = {
  'cold-start': runColdStart,
  ingest: runIngest,
  send: runSend,
  // The deployed sending defaults against a gateway answering in 50–150 ms.
  'send-defaults': runSendDefaults,
  'end-to-end': () => runEndToEnd(10, importMsOf()),
  'end-to-end-single': () => runEndToEnd(1, importMsOf()),
  // The same as `end-to-end`, with "Message Accepted" events on (`sending.acceptedEvents`).
  'end-to-end-accepted': () => runEndToEnd(10, importMsOf(), { acceptedEvents: true }),
  'console-memory': () => runConsoleMemory(),
  latency: runLatency,
  scale: runScale,
  cli: () => runCli(),
  // Last: it reads the end-to-end scenarios' figures of this run or the results file.
  'idle-month': () => runIdleMonth(results.scenarios),
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in scenarios));
if (unknown.length > 0) {
  console.error(
    `unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`,
  );
  process.exit(2);
}

const resultsFile = join(import.meta.dirname, 'results.json');
const machine = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? 'unknown',
};
const previous: { scenarios?: Record<string, unknown> } = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as { scenarios?: Record<string, unknown> })
  : {};
const results = {
  measuredAt: new Date().toISOString(),
  command: `npm run bench${requested.length > 0 ? ` -- ${requested.join(' ')}` : ''}`,
  ...machine,
  summary: summarize(previous.scenarios ?? {}),
  scenarios: { ...previous.scenarios } as Record<string, unknown>,
};

console.log(
  `msgbridge benchmarks: node ${machine.node}, ${machine.cpus} CPUs (${machine.cpuModel})`,
);
for (const name of requested.length > 0 ? requested : Object.keys(scenarios)) {
  const scenario = scenarios[name];
  if (!scenario) continue;
  console.log(`\n## ${name}\n`);
  const started = performance.now();
  const result = await scenario();
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  for (const table of result.tables) console.log(`${formatTable(table)}\n`);
  console.log(`(${name}: ${seconds} s)`);
  results.scenarios[name] = {
    measuredAt: new Date().toISOString(),
    ...machine,
    seconds,
    ...result.figures,
  };
  results.summary = summarize(results.scenarios);
  // Written after each scenario, so a failure later keeps the figures already measured.
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
}
console.log(`\nwrote ${resultsFile}`);
