import { describe, expect, it } from 'vitest';
import {
  accessLogFields,
  accessLogLineBytes,
  CountingLogger,
  emfLineBytes,
  LogBytes,
  PLATFORM_LINE_BYTES,
} from '../../bench/log-meter.ts';

describe('the log meter', () => {
  it('counts the bytes of each line a function’s logger writes, with its Lambda context', () => {
    const tally = new LogBytes();
    const logger = new CountingLogger(tally, 'send-messages', 256);
    logger.debug('not written at INFO');
    logger.info('sent', { cliKey: 'k1', phone: '01012345678' });
    logger.createChild({ serviceName: 'send-messages' }).warn('child line');

    const counted = tally.snapshot()['send-messages'];
    expect(counted?.lines).toBe(2);
    // Each line carries the context fields injectLambdaContext adds (the function ARN alone is ~90 B).
    expect(counted?.bytes).toBeGreaterThan(2 * 300);
  });

  it('renders the access-log format of lib/webhook-api.ts for a request', () => {
    const fields = accessLogFields();
    expect(fields.length).toBeGreaterThanOrEqual(10);
    expect(fields[0]).toEqual(['requestId', 'contextRequestId']);
    expect(fields.map(([key]) => key)).toContain('resourcePath');

    const request = {
      resourcePath: '/webhooks/{secret}/report',
      userAgent: 'undici',
      status: 200,
      responseLength: 16,
      latencyMs: 12,
    };
    const short = accessLogLineBytes(request, fields);
    const longer = accessLogLineBytes(
      { ...request, userAgent: `${request.userAgent}-extra` },
      fields,
    );
    expect(longer - short).toBe('-extra'.length);
    // Only the named fields: a format of one field is one short line.
    expect(accessLogLineBytes(request, [['status', 'contextStatus']])).toBe(
      '{"status":"200"}\n'.length,
    );
  });

  it('models the platform and EMF lines at their rendered size', () => {
    expect(PLATFORM_LINE_BYTES.perInvocation).toBeGreaterThan(300);
    expect(PLATFORM_LINE_BYTES.perColdStart).toBeGreaterThan(200);
    expect(emfLineBytes('msgbridge', ['A', 'B'])).toBeGreaterThan(emfLineBytes('msgbridge', ['A']));
  });
});
