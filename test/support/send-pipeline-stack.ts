/** The stack synthesized for the send pipeline tests (defaults, and sending configured), and the helpers that read its template. */
import { App, Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { TEST_GATEWAY } from '../infra/fixtures/gateway.ts';
import { logicalId } from './stack-template.ts';

export let defaults: Synthesized;

export let configured: Synthesized;

export interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly resource: (construct: IConstruct) => { Properties: Record<string, unknown> };
  readonly id: (construct: IConstruct | undefined) => string;
}

export const synth = (
  props: Partial<MsgbridgeStackProps> = {},
  stackName = 'msgbridge-send',
): Synthesized => {
  const app = new App();
  const stack = new MsgbridgeStack(app, stackName, { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined) => logicalId(stack, construct);
  const resources = template.toJSON().Resources;
  const resource = (construct: IConstruct) => {
    const found = resources[id(construct)];
    if (!found) throw new Error(`no resource for ${construct.node.path}`);
    return found;
  };
  return { stack, template, resource, id };
};

export const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

/** Synthesizes `defaults` and `configured` once before the enclosing describe's tests. */
export const synthSendStacks = (): void => {
  beforeAll(() => {
    defaults = synth();
    configured = synth({
      gateway: { ...TEST_GATEWAY, tpsQuota: 300, timeoutMs: 5_000 },
      sending: {
        functionTimeout: Duration.seconds(90),
        maxReceiveCount: 8,
        batchSize: 20,
        maxConcurrency: 5,
        maxBatchingWindow: Duration.seconds(5),
        attachmentBuckets: ['acme-mms-attachments', 'acme.shared.media'],
      },
      alarmTopicArn: ALARM_TOPIC,
    });
  });
};

export { logicalId, type Statement } from './stack-template.ts';
