import { describe, expect, it } from 'vitest';
import {
  accessLogFields,
  accessLogLineBytes,
  CountingLogger,
  emfLineBytes,
  LogBytes,
  platformLines,
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

  it('counts only the lines the deployed application log level lets through', () => {
    const tally = new LogBytes();
    const logger = new CountingLogger(tally, 'receive-inbound', 256, {}, 'WARN');
    logger.debug('webhook body stored');
    logger.info('also dropped');
    logger.warn('webhook path secret did not match');
    logger.createChild({ serviceName: 'receive-inbound' }).error('store failed');

    expect(tally.snapshot()['receive-inbound']?.lines).toBe(2);
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

  it('models the platform lines of each system log level, and the EMF lines, at their rendered size', () => {
    const info = platformLines('INFO');
    expect(info.linesPerInvocation).toBe(2);
    expect(info.perInvocation).toBeGreaterThan(300);
    expect(info.perColdStart).toBeGreaterThan(200);
    // WARN: a successful invocation and a successful cold start write no platform line.
    expect(platformLines('WARN')).toEqual({
      linesPerInvocation: 0,
      perInvocation: 0,
      linesPerColdStart: 0,
      perColdStart: 0,
    });
    const debug = platformLines('DEBUG');
    expect(debug.linesPerInvocation).toBe(3);
    expect(debug.perInvocation).toBeGreaterThan(info.perInvocation + 150);
    expect(emfLineBytes('msgbridge', ['A', 'B'])).toBeGreaterThan(emfLineBytes('msgbridge', ['A']));
  });
});
