/**
 * `npm run --silent stack-policy [-- -c key=value …] > stack-policy.json`: the CloudFormation stack
 * policy of this repository's stack (`MsgBridge#dataStackPolicy`), built from the same context as
 * `npx cdk synth` (cdk.json, and `-c key=value` pairs as the CDK CLI takes them; a value that is
 * JSON is parsed, like `-c msgbridge='{…}'`). Set it with
 * `aws cloudformation set-stack-policy --stack-name msgbridge --stack-policy-body file://stack-policy.json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { appSettingsFromContext } from '../lib/context-props.ts';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';

const cdkJson = JSON.parse(readFileSync(join(import.meta.dirname, '../cdk.json'), 'utf8')) as {
  context?: Record<string, unknown>;
};
const context: Record<string, unknown> = { ...cdkJson.context };
const args = process.argv.slice(2);
for (const [index, flag] of args.entries()) {
  if (flag !== '-c' && flag !== '--context') continue;
  const pair = args[index + 1] ?? '';
  const split = pair.indexOf('=');
  if (split < 1) throw new Error(`expected key=value after -c, got "${pair}"`);
  const value = pair.slice(split + 1);
  try {
    context[pair.slice(0, split)] = JSON.parse(value);
  } catch {
    context[pair.slice(0, split)] = value;
  }
}
// Logical ids do not depend on the code: no bundling.
const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
const { stackName, env, props } = appSettingsFromContext((key) => app.node.tryGetContext(key));
const stack = new MsgbridgeStack(app, stackName, { ...props, ...(env ? { env } : {}) });
process.stdout.write(`${JSON.stringify(stack.bridge.dataStackPolicy(), null, 2)}\n`);
