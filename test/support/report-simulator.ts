/** A simulator started for report tests (closed when the test that started it ends), its report calls and a webhook receiver. */
import { expect, onTestFinished } from 'vitest';
import { PollReportsResponseDataSchema } from '../../gateway/schemas/reports.ts';
import { formatKst } from '../../protocol/kst.ts';
import type { SimulatorOptionsInput } from '../../simulator/options.ts';
import type { ReportsSnapshot } from '../../simulator/reports.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import { listenReceiver, type Reply } from './sim-receiver.ts';
import { asList, asObject, authenticate, callGateway, type Json } from './simulator-http.ts';

export const CREDENTIALS = { apiKey: 'reports-key', apiPassword: 'reports-secret' };

/** A simulator for report tests, closed when the test that started it has finished; with a token. */
export const start = async (options: Partial<SimulatorOptionsInput> = {}) => {
  const sim = await startSimulator({
    ...CREDENTIALS,
    port: 0,
    clock: 'manual',
    tpsQuota: 10_000,
    failureRate: 0,
    ...options,
  });
  onTestFinished(() => sim.close());
  const { token } = await authenticate(sim, CREDENTIALS);
  return { sim, token };
};

export const reportsOf = (sim: Simulator): ReportsSnapshot =>
  sim.snapshot().reports as ReportsSnapshot;

/** Sends SMS to `count` recipients, 10 per call; returns their msgKeys. */
export const sendSms = async (
  sim: Simulator,
  token: string,
  count: number,
  prefix = 'k',
  extra: Json = {},
): Promise<string[]> => {
  const msgKeys: string[] = [];
  for (let first = 0; first < count; first += 10) {
    const recvInfoLst = Array.from({ length: Math.min(10, count - first) }, (_, i) => ({
      cliKey: `${prefix}-${first + i}`,
      phone: `010${String(10_000_000 + first + i)}`,
    }));
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      token,
      body: { callback: '0212345678', msg: 'hello', recvInfoLst, ...extra },
    });
    expect(answer.status).toBe(200);
    for (const item of asList(asObject(answer.body).data)) msgKeys.push(String(item.msgKey));
  }
  return msgKeys;
};

/** The status query's item for `cliKey`, sent today (KST). */
export const statusOf = async (sim: Simulator, token: string, cliKey: string) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: '/msg/v1/sent',
    token,
    body: { cliKeyLst: [{ cliKey, reqDt: formatKst(sim.clock.now(), 'YYYY-MM-DD') }] },
  });
  const [item] = asList(asObject(asObject(answer.body).data).cliKeyLst);
  return asObject(item);
};

export const poll = async (sim: Simulator, token: string) => {
  const answer = await callGateway(sim, { method: 'GET', path: '/msg/v1.2/report', token });
  return { status: answer.status, body: asObject(answer.body) };
};

export const pollPage = async (sim: Simulator, token: string) => {
  const { status, body } = await poll(sim, token);
  expect(status).toBe(200);
  expect(body.code).toBe('10000');
  const data = asObject(body.data);
  expect(PollReportsResponseDataSchema.safeParse(data).success).toBe(true);
  return { rptKey: String(data.rptKey), rptCnt: data.rptCnt, items: asList(data.rptLst) };
};

export const confirm = async (sim: Simulator, token: string, rptKeyLst: string[]) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: '/msg/v1.2/report/result',
    token,
    body: { rptKeyLst },
  });
  return { status: answer.status, body: asObject(answer.body) };
};

export type { Reply } from './sim-receiver.ts';

/** A local webhook receiver (closed after the test): records every body and answers as `script` says. */
export const startReceiver = async (script: (attempt: number) => Reply) => {
  const listening = await listenReceiver('/hooks/reports', script, {
    'content-type': 'application/json',
  });
  const receiver = {
    ...listening,
    bodies: () => listening.received.map((entry) => asObject(JSON.parse(entry.body))),
  };
  onTestFinished(() => receiver.close());
  return receiver;
};
