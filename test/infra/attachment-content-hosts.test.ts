import { App, CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

// Without `contentHosts` the functions get no ATTACHMENT_CONTENT_HOSTS at all: the environment
// test of scheduled-jobs.test.ts compares the whole environment.
describe('attachment content hosts', () => {
  it('lets content URLs name the extra hosts of props, besides the gateway hosts', () => {
    // Prepare
    const stack = new MsgbridgeStack(new App(), 'msgbridge-content-hosts', {
      gateway: TEST_GATEWAY,
      attachments: { contentHosts: ['files.gateway.example', 'cdn.gateway.example:8443'] },
    });
    const template = Template.fromStack(stack);
    const environmentOf = (fn: IFunction) => {
      const element = fn.node.defaultChild;
      if (!CfnElement.isCfnElement(element)) throw new Error(`${fn.node.path} has no resource`);
      const resources = template.toJSON().Resources as Record<
        string,
        { Properties: { Environment: { Variables: Record<string, unknown> } } }
      >;
      const id = stack.getLogicalId(element);
      return resources[id]?.Properties.Environment.Variables;
    };

    // Act / Assess
    for (const fn of [
      stack.inboundAttachments.fetchAttachments,
      stack.inboundAttachments.sweepAttachments,
    ])
      expect(environmentOf(fn)).toMatchObject({
        ATTACHMENT_CONTENT_HOSTS: 'files.gateway.example,cdn.gateway.example:8443',
        GATEWAY_API_URL: 'https://api.gateway.example',
        GATEWAY_SEND_URL: 'https://send.gateway.example',
        GATEWAY_MNT_URL: 'https://mnt.gateway.example',
      });
  });

  it('refuses extra content hosts that are not DNS host names', () => {
    // Act
    let problems: readonly string[] = [];
    try {
      new MsgbridgeStack(new App(), 'invalid', {
        gateway: TEST_GATEWAY,
        attachments: { contentHosts: ['https://files.gateway.example/x', '169.254.169.254'] },
      });
    } catch (error) {
      if (!(error instanceof InvalidPropsError)) throw error;
      problems = error.problems;
    }

    // Assess
    expect(problems).toEqual([
      'attachments.contentHosts: "https://files.gateway.example/x": give only a host name, optionally with :port',
      `attachments.contentHosts: "169.254.169.254" is an IP address; give the host's DNS name`,
    ]);
  });
});
