/**
 * cfn-lint, AWS's CloudFormation linter, on a synthesized template: every finding in the given
 * Regions except the few listed here with the reason they do not apply. cfn-lint is on every
 * machine of this project; a missing one fails the test that needs it (and `.ci/run` says so
 * before anything runs).
 */
import { spawnSync } from 'node:child_process';

export interface CfnLintFinding {
  readonly rule: string;
  readonly level: string;
  readonly message: string;
  readonly path: readonly (string | number)[];
}

/** Rules whose findings do not apply to a CDK-synthesized template, with why. */
export const IGNORED_CFN_LINT_RULES: Readonly<Record<string, string>> = {
  W3005:
    "CDK's Function adds an explicit DependsOn on its role (and the role's default policy) beside the GetAtt of the role's ARN, so that the policy exists before the function is created; the redundant edge changes nothing and is aws-cdk-lib's to remove.",
};

export class CfnLintMissingError extends Error {
  override readonly name = 'CfnLintMissingError';
}

/** The findings of cfn-lint on `templateFile` in `regions`, the ignored rules left out. */
export const cfnLint = (templateFile: string, regions: readonly string[]): CfnLintFinding[] => {
  const run = spawnSync(
    'cfn-lint',
    ['--format', 'json', '--regions', ...regions, '--', templateFile],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.error)
    throw new CfnLintMissingError(
      `cfn-lint could not be run (${run.error.message}); it is installed on every machine of this project: pip install cfn-lint`,
    );
  // Exit codes: 0 none, 2 errors, 4 warnings, 8 informational (added together); 1 a crash.
  if (run.status === 1 || run.stdout.trim() === '')
    throw new Error(`cfn-lint failed: ${run.stderr.slice(0, 2_000)}`);
  const findings = JSON.parse(run.stdout) as Array<{
    Rule: { Id: string };
    Level: string;
    Message: string;
    Location: { Path: (string | number)[] };
  }>;
  return findings
    .map((finding) => ({
      rule: finding.Rule.Id,
      level: finding.Level,
      message: finding.Message,
      path: finding.Location.Path,
    }))
    .filter((finding) => !Object.hasOwn(IGNORED_CFN_LINT_RULES, finding.rule));
};
