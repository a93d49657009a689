#!/usr/bin/env node
// Runs every test tier in order and ends with one summary line: "N passed, N failed".
// Lint and type-check count as one check each; the vitest tiers count their tests.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

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

/** The first line of a failure message, shortened to fit a log line. */
const firstLine = (message) => (message ?? '').split('\n')[0].slice(0, 300);
/** A failed test's message without its stack, up to 60 lines: enough to say what broke. */
const gist = (message) =>
  (message ?? '')
    .split('\n')
    .filter((line) => !/^\s+at /.test(line))
    .slice(0, 60)
    .map((line, index) => (index === 0 ? line : `      ${line}`).slice(0, 300))
    .join('\n');

const only = process.argv.slice(2);
const workDir = mkdtempSync(join(tmpdir(), 'msgbridge-tests-'));
// Where the tiers that run the bridge leave what their IAM replay checked (test/support/iam-check.setup.ts).
const iamReports = join(workDir, 'iam');
process.env.MSGBRIDGE_IAM_REPORT = iamReports;
let passed = 0;
let failed = 0;
const lines = [];
// The failed tests by name, printed beside the summary so that the end of a log says what failed.
const failures = [];

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
      const path = relative(process.cwd(), file.name ?? '');
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
        tierFailed += 1;
        failures.push(`  ${tier.name}: ${path}: ${firstLine(file.message) || 'did not load'}`);
      }
      for (const test of file.assertionResults ?? [])
        if (test.status === 'failed')
          failures.push(
            `  ${tier.name}: ${path} > ${test.fullName}: ${gist(test.failureMessages?.[0])}`,
          );
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

/**
 * One line for the IAM replay: the requests checked, and how much of what the roles grant a call
 * of the run used (a grant never used is a candidate for removal, or a path no test reaches).
 */
const iamSummary = () => {
  if (!existsSync(iamReports)) return undefined;
  const reports = readdirSync(iamReports).map((name) =>
    JSON.parse(readFileSync(join(iamReports, name), 'utf8')),
  );
  const all = new Set();
  const used = new Set();
  const service = new Set();
  for (const report of reports)
    for (const grants of report.grants) {
      for (const grant of grants.all) all.add(grant);
      for (const grant of grants.used) used.add(grant);
      for (const grant of grants.service) service.add(grant);
    }
  const code = [...all].filter((grant) => !service.has(grant));
  const unused = code.filter((grant) => !used.has(grant));
  const byFunction = {};
  for (const grant of unused) {
    const [fn, action] = grant.split('|');
    byFunction[fn] = [...(byFunction[fn] ?? []), action];
  }
  const checked = reports.reduce((sum, report) => sum + report.checked, 0);
  const denied = reports.reduce((sum, report) => sum + report.denials, 0);
  const runs = reports.reduce((sum, report) => sum + report.runs, 0);
  return [
    `iam: ${checked} requests of ${runs} local runs in ${reports.length} files replayed against the template's policies, ${denied} denied; ${code.length - unused.length} of ${code.length} action grants used by a call (${service.size} more are the Lambda service's own: logs, X-Ray, network interfaces)`,
    ...Object.entries(byFunction).map(
      ([fn, actions]) =>
        `  not used by any call of ${fn}: ${[...new Set(actions)].sort().join(', ')}`,
    ),
  ];
};

const iam = iamSummary();
rmSync(workDir, { recursive: true, force: true });
console.log('');
for (const line of iam ?? []) console.log(line);
for (const line of lines) console.log(line);
if (failures.length > 0) console.log(['failed:', ...failures].join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
