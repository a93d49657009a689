import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { MsgBridge, type MsgBridgeProps, MsgbridgeStack } from '../../lib/index.ts';
import { appWithCdkJsonFlags } from '../support/cdk-app.ts';
import { problemsOf, stackProblems } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

/** What a JavaScript app could pass: TypeScript would refuse these keys, JavaScript does not. */
const untyped = (props: Record<string, unknown>): MsgBridgeProps =>
  props as unknown as MsgBridgeProps;

describe('props that are not props (a JavaScript app misspelling one)', () => {
  it('are reported by name in the construct’s one error, with its other problems', () => {
    // Act
    const problems = problemsOf(
      () =>
        new MsgBridge(
          new Stack(new App(), 'typo'),
          'msgbridge',
          untyped({
            gateway: TEST_GATEWAY,
            reportDeliver: 'polling',
            alarmEmail: ['ops@example.com'],
            moPolling: 'yes',
          }),
        ),
    );

    // Assess
    expect(problems).toEqual([
      'reportDeliver is not a prop (misspelt?); the props are listed in docs/deploy.md',
      'alarmEmail is not a prop (misspelt?); the props are listed in docs/deploy.md',
      'moPolling must be true or false, got "yes"',
    ]);
  });

  it('are reported by the stack too, whose own props (env, stackName, …) are props', () => {
    // Act
    const problems = stackProblems(
      untyped({
        stackName: 'msgbridge-prod',
        description: 'msgbridge',
        terminationProtection: true,
        reportDeliver: 'polling',
      }),
    );

    // Assess
    expect(problems).toEqual([
      'reportDeliver is not a prop (misspelt?); the props are listed in docs/deploy.md',
    ]);
  });

  it('leave a stack with only its own and the construct’s props alone', () => {
    // Prepare: no asset bundling, as `cdk synth` of another stack skips it.
    const app = appWithCdkJsonFlags({ context: { 'aws:cdk:bundling-stacks': [] } });

    // Act
    const stack = new MsgbridgeStack(app, 'clean', {
      gateway: TEST_GATEWAY,
      stackName: 'msgbridge-clean',
      description: 'msgbridge',
      env: { account: '111111111111', region: 'ap-northeast-2' },
      tags: { team: 'messaging' },
      reportDelivery: 'polling',
    });

    // Assess
    expect(stack.stackName).toBe('msgbridge-clean');
    expect(stack.scheduledJobs.pollReports).toBeDefined();
  });
});
