import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, maskingReplacer } from '../../functions/commons/observability.ts';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJrZXkiLCJleHAiOjE3NzI0MjY4MDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

/** What the logger wrote: Powertools writes errors to stderr and the rest to stdout. */
const outputOf = (act: () => void): string => {
  const writes: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  act();
  return writes.join('');
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('secret redaction', () => {
  it.each([
    'token',
    'refreshToken',
    'apiPwd',
    'apiPassword',
    'authorization',
    'Authorization',
    'AUTHORIZATION',
    'RefreshToken',
    'TOKEN',
  ])('writes the value of "%s" as [redacted]', (key) => {
    const line = JSON.stringify({ [key]: 'secret-value-1', other: 'kept' }, maskingReplacer);

    expect(JSON.parse(line)).toEqual({ [key]: '[redacted]', other: 'kept' });
  });

  it('redacts a secret field whatever its value holds, at any depth', () => {
    const line = JSON.stringify(
      {
        request: { headers: { Authorization: ['Bearer abc'] }, body: { apiPwd: 12345 } },
        session: { token: { value: 'abc' }, refreshToken: 'def' },
      },
      maskingReplacer,
    );

    expect(JSON.parse(line)).toEqual({
      request: { headers: { Authorization: '[redacted]' }, body: { apiPwd: '[redacted]' } },
      session: { token: '[redacted]', refreshToken: '[redacted]' },
    });
  });

  it('leaves fields that only resemble secret names alone', () => {
    const line = JSON.stringify(
      { tokens: 3, tokenVersion: 8, apiKey: 'key-1', refreshMinutesLeft: 20 },
      maskingReplacer,
    );

    expect(JSON.parse(line)).toEqual({
      tokens: 3,
      tokenVersion: 8,
      apiKey: 'key-1',
      refreshMinutesLeft: 20,
    });
  });

  it('redacts a JWT quoted inside free text, and still masks phone numbers there', () => {
    const line = JSON.stringify(
      { message: `refused Bearer ${JWT} for 01012345678` },
      maskingReplacer,
    );

    expect(line).not.toContain(JWT.split('.')[1]);
    expect(JSON.parse(line)).toEqual({ message: 'refused Bearer [redacted] for 010****5678' });
  });

  it('is what the logger writes', () => {
    const logger = createLogger('test');

    const output = outputOf(() =>
      logger.info('authenticated', {
        token: JWT,
        refreshToken: 'refresh-secret',
        headers: { authorization: `Bearer ${JWT}` },
        version: 3,
      }),
    );

    expect(output).toContain('"version":3');
    expect(output).toContain('[redacted]');
    expect(output).not.toContain(JWT);
    expect(output).not.toContain('refresh-secret');
  });

  it('redacts a token inside a logged error message', () => {
    const logger = createLogger('test');

    const output = outputOf(() =>
      logger.error('call failed', { error: new Error(`gateway refused ${JWT}`) }),
    );

    expect(output).toContain('gateway refused [redacted]');
    expect(output).not.toContain(JWT);
  });
});
