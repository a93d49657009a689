import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { composeReceiver } from '../../functions/webhooks/compose.ts';
import { sourceAllowlistFromEnvironment } from '../../functions/webhooks/source-allowlist.ts';
import {
  GATEWAY_V4,
  SECRET,
  urlEvent,
  webhookPath,
  webhookReceiver,
} from '../support/webhook-fronts.ts';

const GATEWAY_V6 = '2001:db8:10::7';
const ALLOWED = ['203.0.113.0/24', '2001:db8:10::/48'];
const reportPath = (secret = SECRET.current) => webhookPath('report', secret);
const moPath = (secret = SECRET.current) => webhookPath('mo', secret);

describe('paths a function URL serves that are not the webhook', () => {
  it.each<[string, WebhookKind, string]>([
    ['a wrong secret', 'report', reportPath('wrong-secret-0123456789')],
    ['an empty secret', 'report', '/webhooks//report'],
    ['the other route on this receiver', 'report', moPath()],
    ['the other route on this receiver', 'mo', reportPath()],
    ['the root', 'mo', '/'],
    ['a longer path', 'report', `${reportPath()}/extra`],
    ['a trailing slash', 'report', `${reportPath()}/`],
    ['a stage prefix', 'report', `/v1${reportPath()}`],
    ['a malformed escape', 'mo', '/webhooks/%E0%A4%A/mo'],
  ])('answers 404 and stores nothing for %s (%s)', async (_, kind, path) => {
    const { handler, store } = webhookReceiver(kind);
    const body = JSON.stringify(kind === 'report' ? reportBody(1) : moBody(1));

    const answer = await handler(urlEvent(path, body));

    expect(answer.statusCode).toBe(404);
    expect(store.items.size).toBe(0);
  });

  it('decodes a percent-encoded secret as API Gateway decodes path parameters', async () => {
    const { handler, store } = webhookReceiver('mo');
    const encoded = SECRET.current.replace('-', '%2D');

    const answer = await handler(urlEvent(moPath(encoded), JSON.stringify(moBody(1))));

    expect(JSON.parse(answer.body).code).toBe('10000');
    expect(store.ofKind('mo')).toHaveLength(1);
  });

  it('answers 405 to another method on the right path, and 404 to it on a wrong one', async () => {
    const { handler, store } = webhookReceiver('report');

    const right = await handler(urlEvent(reportPath(), undefined, { method: 'GET' }));
    const wrong = await handler(
      urlEvent(reportPath('nope-0123456789abcdef'), '', { method: 'GET' }),
    );

    expect(right).toMatchObject({ statusCode: 405, headers: { allow: 'POST' } });
    expect(wrong.statusCode).toBe(404);
    expect(store.items.size).toBe(0);
  });

  it.each<[string, unknown]>([
    ['an empty object', {}],
    ['null', null],
    ['a string', 'POST /webhooks'],
    ['version 2.0 without a path or context', { version: '2.0', body: '{}' }],
    ['a path that is not a string', { version: '2.0', rawPath: 42, requestContext: { http: 1 } }],
  ])('answers 404 to an event that is %s, without crashing', async (_, event) => {
    const { handler, store } = webhookReceiver('report');

    const answer = await handler(event as APIGatewayProxyEventV2);

    expect(answer.statusCode).toBe(404);
    expect(store.items.size).toBe(0);
  });
});

describe('the source allowlist in the receiver', () => {
  it.each([
    ['an IPv4 address in a listed block', GATEWAY_V4],
    ['an IPv6 address in a listed block', GATEWAY_V6],
    ['an IPv4-mapped IPv6 address of a listed IPv4 block', `::ffff:${GATEWAY_V4}`],
  ])('lets %s through', async (_, sourceIp) => {
    const { handler, store } = webhookReceiver('report', { allowed: ALLOWED });

    const answer = await handler(
      urlEvent(reportPath(), JSON.stringify(reportBody(1)), { sourceIp }),
    );

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
  });

  it.each([
    ['an IPv4 address outside the blocks', '198.51.100.7'],
    ['the next IPv4 block', '203.0.114.1'],
    ['an IPv6 address outside the blocks', '2001:db8:11::7'],
    ['no address at all', ''],
    ['something that is not an address', 'not-an-ip'],
  ])('answers 403 to %s before the secret is looked up or anything stored', async (_, sourceIp) => {
    const { handler, store, secret } = webhookReceiver('mo', { allowed: ALLOWED });

    const answer = await handler(urlEvent(moPath(), JSON.stringify(moBody(1)), { sourceIp }));

    expect(answer.statusCode).toBe(403);
    expect(secret).not.toHaveBeenCalled();
    expect(store.items.size).toBe(0);
  });

  it('applies to REST proxy events as well, from requestContext.identity.sourceIp', async () => {
    const { handler, store } = webhookReceiver('report', { allowed: ALLOWED });
    const rest = (sourceIp: string) =>
      ({
        pathParameters: { secret: SECRET.current },
        httpMethod: 'POST',
        requestContext: { identity: { sourceIp } },
        body: JSON.stringify(reportBody(1)),
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEventV2;

    expect((await handler(rest('198.51.100.7'))).statusCode).toBe(403);
    expect((await handler(rest(GATEWAY_V4))).statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
  });

  it('is read from ALLOWED_SOURCE_CIDRS once, and a malformed list stops the receiver from starting', () => {
    const allowed = sourceAllowlistFromEnvironment({ ALLOWED_SOURCE_CIDRS: ALLOWED.join(', ') });
    expect([allowed(GATEWAY_V4), allowed(GATEWAY_V6), allowed('198.51.100.7')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(sourceAllowlistFromEnvironment({})('198.51.100.7')).toBe(true);

    const env = {
      EVENT_TABLE_NAME: 'events',
      PAYLOAD_BUCKET: 'payloads',
      WEBHOOK_SECRET_ARN:
        'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook-AbCdEf',
      ALLOWED_SOURCE_CIDRS: '203.0.113.0/24,203.0.113.0/33,10.0.0.1',
    };
    expect(() => composeReceiver('report', env)).toThrow(
      /ALLOWED_SOURCE_CIDRS.*"203\.0\.113\.0\/33", "10\.0\.0\.1"/,
    );
    expect(() => composeReceiver('report', { ...env, ALLOWED_SOURCE_CIDRS: ' , ' })).toThrow(
      /ALLOWED_SOURCE_CIDRS/,
    );
  });
});

describe('the body limit in the receiver', () => {
  it('answers 413 to a body above maxBodyBytes and stores nothing', async () => {
    const { handler, store, payloads } = webhookReceiver('report', { maxBodyBytes: 1024 });

    const answer = await handler(urlEvent(reportPath(), 'x'.repeat(1025)));

    expect(answer.statusCode).toBe(413);
    expect(store.items.size).toBe(0);
    expect(payloads.objects.size).toBe(0);
  });

  it('counts the bytes after base64 decoding, and UTF-8 bytes rather than characters', async () => {
    const { handler, store } = webhookReceiver('mo', { maxBodyBytes: 1024 });
    const body = JSON.stringify(moBody(1));
    const fits = Buffer.from(body + ' '.repeat(1024 - Buffer.byteLength(body))).toString('base64');
    const korean = '한'.repeat(342); // 1,026 bytes in 342 characters

    const fitting = await handler(urlEvent(moPath(), fits, { isBase64Encoded: true }));
    const tooLarge = await handler(urlEvent(moPath(), korean));

    expect(JSON.parse(fitting.body).code).toBe('10000');
    expect(tooLarge.statusCode).toBe(413);
    expect(store.ofKind('mo')).toHaveLength(1);
  });

  it('is read from MAX_BODY_BYTES, at most Lambda’s 6 MB payload limit', () => {
    const env = {
      EVENT_TABLE_NAME: 'events',
      PAYLOAD_BUCKET: 'payloads',
      WEBHOOK_SECRET_ARN:
        'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook-AbCdEf',
    };
    expect(() => composeReceiver('mo', { ...env, MAX_BODY_BYTES: '65536' })).not.toThrow();
    expect(() => composeReceiver('mo', { ...env, MAX_BODY_BYTES: '7000000' })).toThrow(
      /MAX_BODY_BYTES/,
    );
    expect(() => composeReceiver('mo', { ...env, MAX_BODY_BYTES: '1MB' })).toThrow(
      /MAX_BODY_BYTES/,
    );
  });
});
