/**
 * CDK apps for the infrastructure tests. `cdk.json` sets the recommended feature flags of the
 * aws-cdk-lib in use; `new App()` in a test sets none, which is how the stack is built in a
 * customer's app that has not set them. Tests of intent run with either; the snapshot and the
 * cdk-nag gate run with the flags `npx cdk synth` and `cdk deploy` use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type AppProps } from 'aws-cdk-lib';

const root = join(import.meta.dirname, '..', '..');

/** The feature flags of `cdk.json`: every context key but the stack's own settings. */
export const CDK_JSON_FEATURE_FLAGS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(
    (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: object }).context,
  ).filter(([key]) => key !== 'msgbridge'),
);

/** The flags aws-cdk-lib recommends (what `cdk init` writes into a new app's `cdk.json`). */
export const RECOMMENDED_FEATURE_FLAGS: Readonly<Record<string, unknown>> = JSON.parse(
  readFileSync(join(root, 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'), 'utf8'),
);

/** An app with the feature flags of `cdk.json` and `context` on top. */
export const appWithCdkJsonFlags = (props: AppProps = {}): App =>
  new App({ ...props, context: { ...CDK_JSON_FEATURE_FLAGS, ...props.context } });
