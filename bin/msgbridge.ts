#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONTEXT_KEY, stackPropsFromContext } from '../lib/context-props.ts';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';

// Environment-agnostic: account and region come from the deploying credentials.
const app = new App();
new MsgbridgeStack(app, 'msgbridge', stackPropsFromContext(app.node.tryGetContext(CONTEXT_KEY)));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
