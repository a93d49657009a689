/** One simulator per test file for the sending tests, a fresh token per test, recipients, bodies and the send and status calls. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import {
  type Simulator,
  type SimulatorOptionsInput,
  startSimulator,
} from '../../simulator/index.ts';
import { authenticate, callGateway } from './simulator-http.ts';

export const API_KEY = 'send-test-key';

export const API_PASSWORD = randomUUID();

export const CALLBACK = '0212345678';

export const REPORT_DELAY_MS = 2_000;

export let sim: Simulator;

export let token: string;

export let keyCounter = 0;

export const newKey = (label: string): string => `${label}-${++keyCounter}`;

export interface Recipient {
  readonly cliKey: string;
  readonly phone: string;
}

export const recipients = (count: number, label = 'r'): Recipient[] =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: newKey(label),
    phone: `010${String(10_000_000 + index)}`,
  }));

export const smsBody = (
  recvInfoLst: readonly Recipient[],
  extra: Record<string, unknown> = {},
) => ({
  callback: CALLBACK,
  msg: 'Your code is 1234',
  recvInfoLst,
  ...extra,
});

export const send = (path: string, body: unknown, withToken = token) =>
  callGateway(sim, { method: 'POST', path, token: withToken, body });

export const today = (): string => formatKst(sim.clock.now(), 'YYYY-MM-DD');

/** `data.cliKeyLst` of the status query for `cliKeys` sent today (KST). */
export const statusOf = async (cliKeys: readonly string[], reqDt = today()) => {
  const answer = await send('/msg/v1/sent', {
    cliKeyLst: cliKeys.map((cliKey) => ({ cliKey, reqDt })),
  });
  expect(answer.status).toBe(200);
  const body = answer.body as { data: { cliKeyLst: Array<Record<string, unknown>> } };
  return body.data.cliKeyLst;
};

export const itemsOf = (body: unknown): Array<Record<string, unknown>> => {
  expect(body).toMatchObject({ code: '10000', data: expect.any(Array) });
  return (body as { data: Array<Record<string, unknown>> }).data;
};

/** A simulator on a manual clock that knows this module's credentials, with `options` on top. */
export const startSendingSimulator = (
  options: Omit<SimulatorOptionsInput, 'apiKey' | 'apiPassword'>,
) => startSimulator({ apiKey: API_KEY, apiPassword: API_PASSWORD, clock: 'manual', ...options });

/** A bearer token of `simulator` for this module's credentials. */
export const tokenOf = async (simulator: Simulator): Promise<string> =>
  (await authenticate(simulator, { apiKey: API_KEY, apiPassword: API_PASSWORD })).token;

/** Starts the file's simulator before its tests, closes it after them, and authenticates `token` afresh before each test. */
export const useSendingSimulator = (): void => {
  beforeAll(async () => {
    sim = await startSendingSimulator({
      tpsQuota: 1_000,
      reportDelayMs: REPORT_DELAY_MS,
      // The duplicate test asserts 29024 itself; the default draws from the whole family.
      duplicateCode: '29024',
    });
  });

  afterAll(async () => {
    await sim.close();
  });

  // A fresh token per test: some tests move the shared manual clock forward.
  beforeEach(async () => {
    token = await tokenOf(sim);
  });
};
