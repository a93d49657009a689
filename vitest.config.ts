import { defineConfig } from 'vitest/config';

// The tiers that run the bridge replay every AWS call it made against the deployed IAM policies.
const iamCheck = ['test/support/iam-check.setup.ts'];

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          setupFiles: iamCheck,
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 240_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          // The operator console in Debian's Chromium against the local run; one browser at a time.
          name: 'browser',
          setupFiles: iamCheck,
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The seeded fault-injection run (chaos/run.ts) on fixed seeds; one bridge at a time.
          name: 'chaos',
          setupFiles: iamCheck,
          include: ['test/chaos/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // Templates only: no asset bundling unless a test asks for it (CDK reads this context,
          // which a test's own postCliContext overrides; the CDK CLI sets its own for its app).
          env: { CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }) },
          // A synthesis of the whole stack bundles every function: minutes on a busy 2-CPU machine.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
