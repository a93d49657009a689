#!/usr/bin/env node
// Runs every test tier in order and ends with one summary line: "N passed, N failed".
// Lint and type-check count as one check each; the vitest tiers count their tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tiers = [
  { name: 'lint', command: ['npx', 'biome', 'ci', '.'] },
  { name: 'types', command: ['npx', 'tsc', '--noEmit', '-p', 'tsconfig.json'] },
  { name: 'unit', vitest: 'unit' },
  { name: 'integration', vitest: 'integration' },
  { name: 'e2e', vitest: 'e2e' },
  { name: 'browser', vitest: 'browser' },
  { name: 'chaos', vitest: 'chaos' },
  { name: 'infra', vitest: 'infra' },
];

// The pinned SDK warns on Node 20 that its releases after January 2027 will need Node 22; the
// warning says nothing about the versions under test, and repeated per worker it buries the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const only = process.argv.slice(2);
const workDir = mkdtempSync(join(tmpdir(), 'msgbridge-tests-'));
let passed = 0;
let failed = 0;
const lines = [];

for (const tier of tiers) {
  if (only.length > 0 && !only.includes(tier.name)) continue;
  const started = Date.now();
  if (tier.command) {
    const [cmd, ...args] = tier.command;
    const { status } = spawnSync(cmd, args, { stdio: 'inherit' });
    if (status === 0) passed += 1;
    else failed += 1;
    lines.push(`${tier.name}: ${status === 0 ? 'ok' : 'FAILED'} (${Date.now() - started} ms)`);
    continue;
  }
  const report = join(workDir, `${tier.vitest}.json`);
  const { status } = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--project',
      tier.vitest,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { stdio: 'inherit' },
  );
  let tierPassed = 0;
  let tierFailed = 0;
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    tierPassed = result.numPassedTests;
    tierFailed = result.numFailedTests;
    // A suite that failed to load has no tests; count it as a failure so it cannot hide.
    for (const file of result.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) tierFailed += 1;
    }
  } catch {
    tierFailed += 1;
  }
  if (status !== 0 && tierFailed === 0) tierFailed = 1;
  if (tierPassed + tierFailed === 0) tierFailed = 1; // a tier that ran nothing is a failure
  passed += tierPassed;
  failed += tierFailed;
  lines.push(
    `${tier.name}: ${tierPassed} passed, ${tierFailed} failed (${Date.now() - started} ms)`,
  );
}

rmSync(workDir, { recursive: true, force: true });
console.log('');
for (const line of lines) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
