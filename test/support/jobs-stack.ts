/** The stack synthesized for the scheduled jobs and inbound attachments tests (defaults, and polling with every setting), and the helpers that read its template. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { TEST_GATEWAY } from '../infra/fixtures/gateway.ts';
import { logicalId, type Statement } from './stack-template.ts';

/** Webhook mode, every default. */
export let defaults: Synthesized;

/** Polling with MO polling, every setting from props, an alarm topic. */
export let polling: Synthesized;

export const jobs = (synthesized: Synthesized) => synthesized.stack.scheduledJobs;

export const attachments = (synthesized: Synthesized) => synthesized.stack.inboundAttachments;

export const pollReportsOf = (synthesized: Synthesized) =>
  defined(jobs(synthesized).pollReports, 'poll-reports');

export interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly id: (construct: IConstruct | undefined) => string;
  readonly resource: (construct: IConstruct | undefined) => Resource;
}

export const synth = (props: Partial<MsgbridgeStackProps> = {}): Synthesized => {
  const app = new App();
  const stack = new MsgbridgeStack(app, 'msgbridge-jobs', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const id = (construct: IConstruct | undefined): string => logicalId(stack, construct);
  const resource = (construct: IConstruct | undefined): Resource => {
    const found = resources[id(construct)];
    if (!found) throw new Error(`no resource for ${construct?.node.path}`);
    return found;
  };
  return { stack, template, id, resource };
};

export const defined = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} is not defined`);
  return value;
};

export const statementsOfRole = ({ template, id }: Synthesized, role: IConstruct | undefined) =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${id(role)}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

export const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

/** Synthesizes `defaults` and `polling` once before the enclosing describe's tests. */
export const synthJobStacks = (): void => {
  beforeAll(() => {
    defaults = synth();
    polling = synth({
      gateway: { ...TEST_GATEWAY, timeoutMs: 20_000 },
      reportDelivery: 'polling',
      moPolling: true,
      reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
      attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      webhooks: { eventRetentionDays: 60, storeConcurrency: 8 },
      metricsNamespace: 'acme/msgbridge',
      alarmTopicArn: ALARM_TOPIC,
    });
  });
};

export type { Statement } from './stack-template.ts';
