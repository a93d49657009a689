import { describe, expect, it } from 'vitest';
import { deploymentOf, tracesOwnInvocations } from '../../bench/deployed.ts';
import { TEST_GATEWAY } from '../infra/fixtures/gateway.ts';

// Each case builds the stack and synthesizes its template (for the retentions): seconds, not ms.
describe('what the benchmark prices: the deployed configuration', { timeout: 60_000 }, () => {
  it('reads the front door, log levels and tracing of the stack cdk.json describes', () => {
    const deployment = deploymentOf();

    // The retentions the storage lines price, as the template sets them.
    expect(deployment.retentions).toEqual({
      eventDays: 35,
      pointInTimeRecovery: true,
      attachmentDays: 365,
      archiveDays: 30,
      logDays: 30,
    });
    expect(deployment.front).toBe('function-url');
    expect(deployment.stageTracing).toBe(false);
    expect(Object.keys(deployment.functions)).toEqual(
      expect.arrayContaining([
        'receive-reports',
        'receive-inbound',
        'publish-events',
        'send-messages',
        'fetch-attachments',
        'reconcile-status',
      ]),
    );
    for (const fn of Object.values(deployment.functions))
      expect(fn).toEqual({
        applicationLogLevel: 'INFO',
        systemLogLevel: 'WARN',
        tracing: 'PassThrough',
      });
    // Pass-through behind function URLs: no invocation starts a trace.
    for (const name of Object.keys(deployment.functions))
      expect(tracesOwnInvocations(deployment, name)).toBe(false);
  });

  it('follows another configuration: the REST API with stage tracing, other levels, active tracing', () => {
    const rest = deploymentOf({
      gateway: TEST_GATEWAY,
      webhooks: { front: 'rest-api', stageTracing: true },
      observability: { systemLogLevel: 'INFO', applicationLogLevel: 'DEBUG' },
    });
    const active = deploymentOf({ gateway: TEST_GATEWAY, observability: { tracing: 'active' } });

    expect(rest).toMatchObject({ front: 'rest-api', stageTracing: true });
    expect(rest.functions['receive-inbound']).toEqual({
      applicationLogLevel: 'DEBUG',
      systemLogLevel: 'INFO',
      tracing: 'PassThrough',
    });
    // The stage samples for the receivers only; the stream's publisher starts no trace.
    expect(tracesOwnInvocations(rest, 'receive-inbound')).toBe(true);
    expect(tracesOwnInvocations(rest, 'publish-events')).toBe(false);
    expect(tracesOwnInvocations(active, 'publish-events')).toBe(true);
  });
});
