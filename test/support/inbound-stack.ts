/**
 * The stacks synthesized for the inbound path tests (defaults, with their function-URL front; the
 * REST API front with its defaults; the REST API with webhooks and publisher configured), and the
 * helpers that read their templates.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { TEST_GATEWAY } from '../infra/fixtures/gateway.ts';
import { logicalId } from './stack-template.ts';

export let defaults: Synthesized;

/** `webhooks.front: 'rest-api'` and nothing else. */
export let restApi: Synthesized;

/** The REST API front with an allowlist, throttling and stage tracing; the publisher and alarms configured. */
export let configured: Synthesized;

export interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  readonly id: (construct: IConstruct | undefined) => string;
}

export const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}): Synthesized => {
  // Templates only: the functions' code is not bundled (their bundles are tested apart).
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-inbound', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined): string => logicalId(stack, construct);
  return { stack, template, resources: template.toJSON().Resources, id };
};

export const environmentOf = ({ resources, id }: Synthesized, fn: IConstruct): unknown => {
  const properties = resources[id(fn)]?.Properties as
    | { Environment?: { Variables?: unknown } }
    | undefined;
  return properties?.Environment?.Variables;
};

/** Synthesizes `defaults`, `restApi` and `configured` once before the enclosing describe's tests. */
export const synthInboundStacks = (): void => {
  beforeAll(() => {
    defaults = synth();
    restApi = synth({ webhooks: { front: 'rest-api' } });
    configured = synth({
      webhooks: {
        front: 'rest-api',
        allowedSourceCidrs: ['203.0.113.0/24', '2001:db8::/32'],
        throttlingRateLimit: 20,
        throttlingBurstLimit: 40,
        stageTracing: true,
      },
      publisher: { archiveRetentionDays: 90 },
      alarmTopicArn: 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms',
    });
  });
};

export type { Statement } from './stack-template.ts';
