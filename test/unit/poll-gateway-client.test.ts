import { describe, expect, it } from 'vitest';
import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import {
  type MoPollingGateway,
  pollInbound,
  pollReports,
  type ReportPollingGateway,
} from '../../functions/polling/poll-use-case.ts';
import { GatewayClient } from '../../gateway/client.ts';
import type { HttpAnswer, HttpCall } from '../../gateway/transport.ts';
import { harness } from '../support/poll-harness.ts';

describe('through the gateway client', () => {
  /** The gateway's HTTP answers: report polls and MO lists from a script, confirms succeed. */
  const gatewayAnswering = (polls: unknown[], moLists: unknown[]) => {
    const calls: HttpCall[] = [];
    const answer = (data: unknown): HttpAnswer => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify({ code: '10000', message: 'success', data }),
    });
    const client = new GatewayClient({
      hosts: {
        api: 'https://api.gw.test',
        send: 'https://send.gw.test',
        mnt: 'https://mnt.gw.test',
      },
      tokens: { getToken: async () => 'token', invalidate: async () => {} },
      transport: async (call) => {
        calls.push(call);
        if (call.url.endsWith('/msg/v1.2/report')) return answer(polls.shift() ?? null);
        if (call.url.endsWith('/msg/v1.2/report/result')) return answer(null);
        if (call.url.endsWith('/mo/v1/msg')) return answer(moLists.shift() ?? []);
        throw new Error(`unexpected call ${call.url}`);
      },
    });
    return { client, calls };
  };

  it('reads a polled page with a numeric msgKey, stores the rest and confirms it', async () => {
    // Prepare: the gateway's JSON, as it arrives.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 20_000 });
    const rptLst = Array.from({ length: 100 }, (_, i) => reportItem(90_000 + i));
    rptLst[7] = { ...reportItem(90_007), msgKey: 123 as unknown as string };
    const { client, calls } = gatewayAnswering([{ rptKey: 'RK1', rptCnt: '100', rptLst }], []);

    // Act
    const outcome = await pollReports(h.deps(client), 'polling');

    // Assess
    expect(outcome).toMatchObject({
      failedPolls: 0,
      reportsStored: 99,
      itemsQuarantined: 1,
      pagesConfirmed: 1,
    });
    const confirm = calls.find((call) => call.url.endsWith('/report/result'));
    expect(JSON.parse(String(confirm?.body))).toEqual({ rptKeyLst: ['RK1'] });
  });

  it('reads a polled MO list with an empty contentSize and stores every message', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 20_000 });
    const moLst = [
      moItem(21),
      moItem(22, {
        contentCnt: '1',
        contentInfoLst: [
          { contentName: 'a.png', contentSize: '', contentExt: 'png', contentUrl: 'https://f/a' },
        ],
      }),
    ];
    const { client } = gatewayAnswering([], [moLst]);

    // Act
    const outcome = await pollInbound(h.deps(client));

    // Assess
    expect(outcome).toMatchObject({ failedPolls: 0, messagesStored: 2, itemsQuarantined: 0 });
    expect(h.store.ofKind('mo')).toHaveLength(2);
  });
});
