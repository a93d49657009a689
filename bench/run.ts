/**
 * `npm run bench [-- SCENARIO…]`: runs the benchmark scenarios, prints their figures and writes
 * them to `bench/results/<scenario>.json`. Figures are counts and ratios from one run; absolute
 * times are printed for context only (the machines are shared and noisy).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runIngest } from './ingest.ts';
import { runSend } from './send.ts';

const scenarios: Record<string, () => Promise<unknown>> = { ingest: runIngest, send: runSend };

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in scenarios));
if (unknown.length > 0) {
  console.error(
    `unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`,
  );
  process.exit(2);
}
const resultsDir = join(import.meta.dirname, 'results');
mkdirSync(resultsDir, { recursive: true });
for (const name of requested.length > 0 ? requested : Object.keys(scenarios)) {
  const scenario = scenarios[name];
  if (!scenario) continue;
  const figures = {
    scenario: name,
    measuredAt: new Date().toISOString(),
    node: process.version,
    ...((await scenario()) as object),
  };
  const file = join(resultsDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
  console.log(`wrote ${file}`);
}
