import { describe, expect, it } from 'vitest';
import { type Endpoint, GatewayHttp } from '../../gateway/envelope.ts';
import {
  classifyCode,
  GatewayAuthenticationError,
  GatewayDuplicateError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayResponseError,
  GatewayRetryableError,
  GatewayTransportError,
} from '../../gateway/errors.ts';
import { type HttpAnswer, type HttpCall, HttpTransportFailure } from '../../gateway/transport.ts';

const hosts = {
  api: 'https://api.example.test/base',
  send: 'https://send.example.test',
  mnt: 'https://mnt.example.test',
};
const SMS: Endpoint = { host: 'send', method: 'POST', path: '/xms/sms/v1' };

/** A transport that records calls and answers from a script. */
const scripted = (...answers: Array<HttpAnswer | Error>) => {
  const calls: HttpCall[] = [];
  const transport = async (call: HttpCall): Promise<HttpAnswer> => {
    calls.push(call);
    const next = answers.shift();
    if (next === undefined) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    return next;
  };
  return { calls, transport };
};

const json = (status: number, body: unknown): HttpAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(body),
});

describe('classifyCode', () => {
  it.each([
    ['10000', undefined, 'success'],
    ['20000', 401, 'authentication'],
    ['20002', 401, 'authentication'],
    ['29011', 401, 'authentication'],
    ['29025', 401, 'authentication'],
    ['29002', 400, 'rate-limited'],
    ['29005', 200, 'duplicate'],
    ['29023', 200, 'duplicate'],
    ['29024', 200, 'duplicate'],
    ['29019', 200, 'retryable'],
    ['49123', 200, 'retryable'],
    ['65999', 200, 'retryable'],
    ['21400', 400, 'retryable'],
    ['21012', 400, 'rejected'],
    ['29018', 200, 'rejected'],
    ['12345', 503, 'retryable'],
  ] as const)('%s with HTTP %s is %s', (code, status, family) => {
    expect(classifyCode(code, status)).toBe(family);
  });
});

describe('GatewayHttp envelope rules', () => {
  it('builds the URL from the host, path parameters and query, with JSON and bearer headers', async () => {
    // Prepare
    const { calls, transport } = scripted(
      json(200, { code: '10000', message: 'success', data: [] }),
    );
    const http = new GatewayHttp({ hosts, transport, timeoutMs: 1234 });

    // Act
    await http.call({
      endpoint: { host: 'api', method: 'GET', path: '/mo/v1/file/{moKey}' },
      auth: { bearer: 'tok' },
      pathParams: { moKey: 'a/b' },
      query: { index: 1, skip: undefined },
      json: { x: 1 },
    });

    // Assess
    expect(calls[0]?.url).toBe('https://api.example.test/base/mo/v1/file/a%2Fb?index=1');
    expect(calls[0]?.headers.authorization).toBe('Bearer tok');
    expect(calls[0]?.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(calls[0]?.body).toBe('{"x":1}');
    expect(calls[0]?.timeoutMs).toBe(1234);
  });

  it('sends the apiKey header instead of a bearer token where asked', async () => {
    const { calls, transport } = scripted(json(200, { code: '10000', message: 'ok' }));
    await new GatewayHttp({ hosts, transport }).call({ endpoint: SMS, auth: { apiKey: 'key-1' } });

    expect(calls[0]?.headers.apiKey).toBe('key-1');
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });

  it('treats code 10000 as success and keeps unknown envelope fields', async () => {
    const { transport } = scripted(
      json(200, { code: '10000', message: 'success', data: [1], extra: true }),
    );
    const envelope = await new GatewayHttp({ hosts, transport }).call({
      endpoint: SMS,
      auth: 'none',
    });

    expect(envelope).toEqual({ code: '10000', message: 'success', data: [1], extra: true });
  });

  it.each([
    ['29018 quota exceeded with HTTP 200', 200, '29018', GatewayRejectedError],
    ['29019 db error with HTTP 200', 200, '29019', GatewayRetryableError],
    ['29039 no response data with HTTP 200', 200, '29039', GatewayRejectedError],
    ['an authentication code with HTTP 401', 401, '20002', GatewayAuthenticationError],
    ['the rate limit with HTTP 400', 400, '29002', GatewayRateLimitedError],
    ['a duplicate send', 200, '29005', GatewayDuplicateError],
    ['a validation code', 400, '21014', GatewayRejectedError],
    ['an unknown code with HTTP 502', 502, '99999', GatewayRetryableError],
  ])('fails on %s', async (_, status, code, errorClass) => {
    const { transport } = scripted(json(status, { code, message: `message ${code}` }));
    const call = new GatewayHttp({ hosts, transport }).call({ endpoint: SMS, auth: 'none' });

    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({
      code,
      gatewayMessage: `message ${code}`,
      endpoint: 'POST /xms/sms/v1',
      httpStatus: status,
    });
  });

  it('reads a numeric code as the same string', async () => {
    const { transport } = scripted(json(400, { code: 29002, message: 'tps' }));
    await expect(
      new GatewayHttp({ hosts, transport }).call({ endpoint: SMS, auth: 'none' }),
    ).rejects.toMatchObject({
      name: 'GatewayRateLimitedError',
      code: '29002',
    });
  });

  it.each([
    [503, 'Service Unavailable', GatewayRetryableError],
    [401, '', GatewayAuthenticationError],
    [200, '<html>proxy error</html>', GatewayResponseError],
    [200, '{"message":"no code"}', GatewayResponseError],
  ])(
    'maps an answer without an envelope (HTTP %s) by its status',
    async (status, text, errorClass) => {
      const { transport } = scripted({ status, headers: {}, text });
      const error = await new GatewayHttp({ hosts, transport })
        .call({ endpoint: SMS, auth: 'none' })
        .catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ code: `HTTP_${status}` });
    },
  );

  it.each([
    ['timeout', 'TIMEOUT'],
    ['connection', 'CONNECTION'],
  ] as const)('turns a %s into a retryable transport error', async (kind, code) => {
    const { transport } = scripted(new HttpTransportFailure(kind, 'boom'));
    const error = await new GatewayHttp({ hosts, transport })
      .call({ endpoint: SMS, auth: 'none' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ kind, code, retryable: true, endpoint: 'POST /xms/sms/v1' });
  });
});
