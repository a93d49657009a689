/**
 * The TPS quota and the client's re-authentication: a send refused for its token is sent again
 * with a fresh one, and that second request reaches the gateway too. The rate limiter must have
 * reserved every request the gateway saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mmsBody, smsBody } from '../../fixtures/send-bodies.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { SendGateway } from '../../functions/sending/ports.ts';
import type { RateLimiter } from '../../functions/sending/rate-limiter.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { type HttpTransport, nodeTransport } from '../../gateway/transport.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { FakeSendStore } from '../support/fake-send-store.ts';

const credentials = { apiKey: 'reauth-quota-key', apiPassword: 'reauth-quota-password' };

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ ...credentials, clock: 'real', tpsQuota: 1_000 });
});

afterAll(async () => {
  await sim.close();
});

/** The first delivery of `message` sent through `gateway` and `rateLimiter`, on the wall clock. */
const sendOnce = (
  message: unknown,
  messageId: string,
  gateway: SendGateway,
  rateLimiter: RateLimiter,
  store = new FakeSendStore(),
) =>
  sendQueuedMessage(
    {
      body: JSON.stringify(message),
      messageId,
      sentAt: new Date(),
      receiveCount: 1,
      maxReceiveCount: 6,
    },
    {
      store,
      awaiting: store,
      acceptedEvents: true,
      gateway,
      rateLimiter,
      now: () => new Date(),
      retentionDays: 35,
      claimLeaseMs: 30_000,
      deadline: Date.now() + 20_000,
    },
  );

describe('a send resent after a refused token', () => {
  it('reserves quota for every request that reaches the gateway', async () => {
    // Prepare: the client counts the send requests it puts on the wire.
    const sendRequests: number[] = [];
    const transport: HttpTransport = (call) => {
      if (call.url.includes('/xms/sms/v1') && typeof call.body === 'string')
        sendRequests.push((JSON.parse(call.body) as { recvInfoLst: unknown[] }).recvInfoLst.length);
      return nodeTransport(call);
    };
    const hosts = sim.hosts;
    const tokens = new SessionTokenProvider({
      auth: new GatewayAuthApi({ hosts }),
      credentials: () => credentials,
    });
    const client = new GatewayClient({ hosts, tokens, timeoutMs: 2_000, transport });
    await tokens.getToken();
    // The gateway refuses the token the client holds: the first request answers 401 (29011).
    sim.revokeTokens();
    const reserved: number[] = [];
    const limiter: RateLimiter = {
      acquire: async (recipients) => {
        reserved.push(recipients);
        return { waitedMs: 0, window: 0, fullWindows: 0, reserved: recipients };
      },
    };
    const store = new FakeSendStore();
    const message = { channel: 'sms', ...smsBody(3) };

    // Act
    const result = await sendOnce(message, 'reauth-1', new GatewaySender(client), limiter, store);

    // Assess
    expect(result).toMatchObject({ kind: 'done', accepted: 3 });
    expect(sendRequests).toEqual([3, 3]);
    expect(reserved).toEqual(sendRequests);
  });

  it('takes the quota last: after the token, the attachments from S3 and the connection', async () => {
    // Prepare: every step before the request goes out writes down when it ran.
    const steps: string[] = [];
    const hosts = sim.hosts;
    const session = new SessionTokenProvider({
      auth: new GatewayAuthApi({ hosts }),
      credentials: () => credentials,
    });
    const tokens = {
      getToken: async () => {
        const token = await session.getToken();
        steps.push('token');
        return token;
      },
      invalidate: (token: string) => session.invalidate(token),
    };
    const transport: HttpTransport = (call) =>
      nodeTransport({
        ...call,
        ...(call.beforeWrite && {
          beforeWrite: async () => {
            await call.beforeWrite?.();
            steps.push('first byte');
          },
        }),
      });
    const client = new GatewayClient({ hosts, tokens, timeoutMs: 2_000, transport });
    const limiter: RateLimiter = {
      acquire: async (recipients) => {
        steps.push('quota');
        return { waitedMs: 0, window: 0, fullWindows: 0, reserved: recipients };
      },
    };
    const loadAttachments = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      steps.push('s3');
      return [{ name: 'a.jpg', contentType: 'image/jpeg', data: new Uint8Array([0xff, 0xd8]) }];
    };
    const message = {
      channel: 'mms',
      ...mmsBody(),
      attachments: [{ bucket: 'files', key: 'a.jpg' }],
    };

    // Act
    const result = await sendOnce(
      message,
      'quota-last-1',
      new GatewaySender(client, loadAttachments),
      limiter,
    );

    // Assess
    expect(result).toMatchObject({ kind: 'done', accepted: 2 });
    expect(steps).toEqual(['s3', 'token', 'quota', 'first byte']);
  });
});
