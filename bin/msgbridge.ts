#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { appSettingsFromContext } from '../lib/context-props.ts';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';

// The stack name (default `msgbridge`), the optional account and region, and the `msgbridge`
// settings, from the context (cdk.json or `-c key=value`; docs/deploy.md). Without account and
// region the stack is environment-agnostic: they come from the deploying credentials.
const app = new App();
const { stackName, env, props } = appSettingsFromContext((key) => app.node.tryGetContext(key));
new MsgbridgeStack(app, stackName, { ...props, ...(env ? { env } : {}) });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
