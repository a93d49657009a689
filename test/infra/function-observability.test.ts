/**
 * The log levels (Lambda's advanced logging controls) and the X-Ray tracing mode of every function:
 * cost-aware defaults (application INFO, system WARN, pass-through tracing), one stack setting
 * (`observability`, also a context key) for all of them, and values that would lose data refused.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { allStatements, stackProblems } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

type Resource = { Properties: Record<string, unknown> };

/** Templates only: the functions' code is not bundled. */
const functionsOf = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-observability-settings', {
    gateway: TEST_GATEWAY,
    reportDelivery: 'both',
    ...props,
  });
  const template = Template.fromStack(stack);
  const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
  return { template, functions };
};

const xrayActions = (template: Template) =>
  allStatements(template)
    .flatMap((statement) => [statement.Action].flat())
    .filter((action) => String(action).startsWith('xray:'));

describe('function observability', () => {
  it('logs JSON at application level INFO and system level WARN, and traces pass-through, by default', () => {
    const { template, functions } = functionsOf();

    // Every function of the stack, the report poller included.
    expect(functions.length).toBe(9);
    for (const fn of functions) {
      expect(fn.Properties.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
      });
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'PassThrough' });
    }
    // Pass-through still records the segments of upstream-sampled requests: it may write them.
    expect(new Set(xrayActions(template))).toEqual(
      new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
    );
  });

  it('takes the levels and the tracing mode from the context, for every function', () => {
    const props = stackPropsFromContext({
      gateway: TEST_GATEWAY,
      observability: { applicationLogLevel: 'DEBUG', systemLogLevel: 'INFO', tracing: 'active' },
    });
    const { functions } = functionsOf(props);

    expect(functions.length).toBeGreaterThan(7);
    for (const fn of functions) {
      expect(fn.Properties.LoggingConfig).toMatchObject({
        ApplicationLogLevel: 'DEBUG',
        SystemLogLevel: 'INFO',
      });
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });

  it('grants no X-Ray action when tracing is disabled', () => {
    const { template, functions } = functionsOf({ observability: { tracing: 'disabled' } });

    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
      // Nothing in a function traces: no switch is needed to keep it from recording.
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('POWERTOOLS_TRACE');
    }
    expect(xrayActions(template)).toEqual([]);
  });

  it('refuses an application level above INFO, which would drop the metrics, with the other problems', () => {
    const problems = stackProblems({
      observability: {
        applicationLogLevel: 'WARN' as 'INFO',
        systemLogLevel: 'ERROR' as 'WARN',
        tracing: 'sampled' as 'active',
      },
    });

    expect(problems).toEqual([
      'observability.applicationLogLevel must be "TRACE", "DEBUG", "INFO" (a higher level would drop the functions’ metrics, which Lambda files under INFO), got "WARN"',
      'observability.systemLogLevel must be "DEBUG", "INFO", "WARN", got "ERROR"',
      'observability.tracing must be "active", "pass-through", "disabled", got "sampled"',
    ]);
  });
});
