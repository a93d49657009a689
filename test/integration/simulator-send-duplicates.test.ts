/**
 * The simulator's own send rules, driven over HTTP with raw request bodies: each case shows the
 * simulator enforcing one rule of spec 01 (§2, §4.3–4.10, §8) or of the field notes by itself,
 * whatever the bridge believes.
 */

import { describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import {
  credentials,
  expectAccepted,
  expectRefused,
  key,
  mms,
  push,
  rcs,
  recipients,
  send,
  sim,
  sms,
  start,
  useRulesSimulator,
} from '../support/send-rules-simulator.ts';
import { asList, asObject, authenticate, callGateway } from '../support/simulator-http.ts';

useRulesSimulator();

describe('duplicate family (duplicateCode)', () => {
  it.each(['29005', '29023', '29024'] as const)(
    'duplicateCode %s answers that code for a repeated cliKey, immediate and scheduled',
    async (duplicateCode) => {
      const own = await start({ duplicateCode });
      try {
        const { token: ownToken } = await authenticate(own, credentials);
        const recvInfoLst = recipients(1);
        await expectAccepted(send('/msg/v1/sms', sms({ recvInfoLst }), own, ownToken));

        const again = await send('/msg/v1/sms', sms({ recvInfoLst }), own, ownToken);
        const scheduled = await send(
          '/msg/v1/sms',
          sms({
            recvInfoLst,
            resvYn: 'Y',
            resvReqDt: formatKst(own.clock.now() + 3_600_000, 'YYYY-MM-DD HH:mm'),
          }),
          own,
          ownToken,
        );

        expect(again.body).toMatchObject({
          code: '10000',
          data: [{ cliKey: recvInfoLst[0]?.cliKey, code: duplicateCode }],
        });
        expect(scheduled).toMatchObject({ status: 400, body: { code: duplicateCode } });
      } finally {
        await own.close();
      }
    },
  );

  it('a cliKey twice in one request: an immediate send accepts the first, a scheduled send none', async () => {
    const [first] = recipients(1);
    const twice = [first, first];

    const now = await send('/msg/v1/sms', sms({ recvInfoLst: twice }));
    const before = sim.snapshot().recipientsAccepted;
    const [second] = recipients(1);
    const later = await send(
      '/msg/v1/sms',
      sms({
        recvInfoLst: [second, second],
        resvYn: 'Y',
        resvReqDt: formatKst(sim.clock.now() + 3_600_000, 'YYYY-MM-DD HH:mm'),
      }),
    );

    const items = asList(asObject(now.body).data);
    expect(items[0]).toMatchObject({ cliKey: first?.cliKey, code: '10000' });
    expect(['29005', '29023', '29024']).toContain(items[1]?.code);
    expect(later.status).toBe(400);
    expect(['29005', '29023', '29024']).toContain(asObject(later.body).code);
    expect(sim.snapshot().recipientsAccepted).toBe(before);
  });

  it('mixed (the default) draws every code of the family over a few repeats', async () => {
    const recvInfoLst = recipients(1);
    await expectAccepted(send('/msg/v1/sms', sms({ recvInfoLst })));
    const codes = new Set<unknown>();

    for (let attempt = 0; attempt < 15; attempt++) {
      const answer = await send('/msg/v1/sms', sms({ recvInfoLst }));
      codes.add(asList(asObject(answer.body).data)[0]?.code);
    }

    expect([...codes].sort()).toEqual(['29005', '29023', '29024']);
  });
});

describe('file ids (21029)', () => {
  const register = (fileId: string, expiresInMs: number) =>
    callGateway(sim, { method: 'POST', path: '/_sim/files', body: { fileId, expiresInMs } });

  it('accepts a registered id before its expiry and refuses it after with 21029', async () => {
    const fileId = `F-${key()}`;
    expect((await register(fileId, 60_000)).body).toMatchObject({ code: '10000' });
    await expectAccepted(send('/xms/mms/v1', mms({ fileIdLst: [fileId] })));

    await sim.advance(60_000);

    await expectRefused(send('/xms/mms/v1', mms({ fileIdLst: [fileId] })), '21029', fileId);
  });

  it('accepts a fresh id and an id never registered', async () => {
    const fresh = `F-${key()}`;
    await register(fresh, 3_600_000);
    await expectAccepted(send('/xms/mms/v1', mms({ fileIdLst: [fresh, `never-${key()}`] })));
  });

  it('checks fallback and push file ids too', async () => {
    const expired = `F-${key()}`;
    await register(expired, 0);
    await expectRefused(
      send(
        '/msg/v1.1/rcs',
        rcs({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm', fileIdLst: [expired] }] }),
      ),
      '21029',
      'fbInfoLst[0].fileIdLst[0]',
    );
    await expectRefused(send('/msg/v1/push', push({ fileId: expired })), '21029', 'fileId');
  });
});
