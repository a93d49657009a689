#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';

// Environment-agnostic: account and region come from the deploying credentials.
const app = new App();
new MsgbridgeStack(app, 'msgbridge');
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
