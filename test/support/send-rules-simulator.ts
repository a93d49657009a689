/** One simulator per test file for the send rule tests, a fresh token per test, the channel bodies and the send, refusal and report calls. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  type Simulator,
  type SimulatorOptionsInput,
  startSimulator,
} from '../../simulator/index.ts';
import { asObject, authenticate, callGateway } from './simulator-http.ts';

export const credentials = { apiKey: 'rules-key', apiPassword: randomUUID() };

export const CALLBACK = '0212345678';

export const REPORT_DELAY_MS = 1_000;

export let sim: Simulator;

export let token: string;

export const start = (options: Partial<SimulatorOptionsInput> = {}) =>
  startSimulator({
    ...credentials,
    clock: 'manual',
    tpsQuota: 10_000,
    reportDelayMs: REPORT_DELAY_MS,
    failureRate: 0,
    uncertainRate: 0,
    ...options,
  });

export let counter = 0;

export const key = (label = 'k'): string => `${label}-${++counter}`;

export const recipients = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: key(),
    phone: `0101234${String(1000 + index)}`,
    ...extra,
  }));

export const sms = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: 'Your code is 1234',
  recvInfoLst: recipients(1),
  ...extra,
});

export const mms = (extra: Record<string, unknown> = {}) =>
  sms({ title: 'Notice', msg: 'A longer text', ...extra });

export const rcs = (extra: Record<string, unknown> = {}) => ({
  messagebaseId: 'TMPL-0001',
  callback: CALLBACK,
  header: '0',
  recvInfoLst: recipients(1),
  ...extra,
});

export const push = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: { title: 'Hello', body: 'Your parcel is on its way' },
  appId: 'app-1',
  clickUrlYn: 'N',
  recvInfoLst: [{ cliKey: key('push'), cuid: 'user-1' }],
  ...extra,
});

export const notice = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: 'Your order has shipped',
  msgrChId: 'channel-1',
  tmpltCode: 'ORDER_SHIPPED',
  recvInfoLst: recipients(1),
  ...extra,
});

export const brandTemplate = (extra: Record<string, unknown> = {}) => ({
  targeting: 'I',
  msgrChId: 'channel-1',
  tmpltCode: 'BRAND_1',
  chatBubbleType: 'TEXT',
  callback: CALLBACK,
  recvInfoLst: recipients(1),
  ...extra,
});

export const brandFree = (extra: Record<string, unknown> = {}) => ({
  targeting: 'N',
  msgrChId: 'channel-1',
  chatBubbleType: 'TEXT',
  content: 'Spring sale starts today',
  callback: CALLBACK,
  recvInfoLst: recipients(1),
  ...extra,
});

export const openUrl = (url: string) => ({
  suggestions: [
    {
      action: {
        displayText: 'Open',
        postback: { data: 'set_by_chatbot_open_url' },
        urlAction: { openUrl: { url } },
      },
    },
  ],
});

export const send = (path: string, body: unknown, on: Simulator = sim, withToken = token) =>
  callGateway(on, { method: 'POST', path, token: withToken, body });

/** Asserts a top-level refusal with `code`, and that its message names `path` when given. */
export const expectRefused = async (
  answer: Promise<{ status: number; body: unknown }>,
  code: string,
  path?: string,
) => {
  const { status, body } = await answer;
  expect(body).toMatchObject({ code });
  expect(status).toBe(400);
  if (path !== undefined) expect(asObject(body).message).toEqual(expect.stringContaining(path));
};

export const expectAccepted = async (answer: Promise<{ status: number; body: unknown }>) => {
  const { status, body } = await answer;
  expect(body).toMatchObject({ code: '10000' });
  expect(status).toBe(200);
  return body;
};

/** Starts the file's simulator before its tests, closes it after them, and authenticates `token` afresh before each test. */
export const useRulesSimulator = (): void => {
  beforeAll(async () => {
    sim = await start();
  });

  afterAll(async () => {
    await sim.close();
  });

  beforeEach(async () => {
    ({ token } = await authenticate(sim, credentials));
  });
};
