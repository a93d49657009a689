import { describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import {
  REPORT_DELAY_MS,
  recipients,
  send,
  sim,
  smsBody,
  statusOf,
  useSendingSimulator,
} from '../support/sending-simulator.ts';

useSendingSimulator();

describe('scheduled sends', () => {
  const inMinutes = (minutes: number): string =>
    formatKst(sim.clock.now() + minutes * 60_000, 'YYYY-MM-DD HH:mm');

  it('answers {regDt, webReqId} and delivers at the scheduled time', async () => {
    // Prepare
    const recvInfoLst = recipients(2, 'resv');
    const body = smsBody(recvInfoLst, { resvYn: 'Y', resvReqDt: inMinutes(10) });

    // Act
    const answer = await send('/xms/sms/v1', body);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      code: '10000',
      data: {
        regDt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        webReqId: expect.any(String),
      },
    });
    const keys = recvInfoLst.map((recipient) => recipient.cliKey);
    expect(await statusOf(keys)).toMatchObject([{ status: 'REG' }, { status: 'REG' }]);
    await sim.advance(11 * 60_000 + REPORT_DELAY_MS);
    expect(await statusOf(keys)).toMatchObject([{ status: 'DONE' }, { status: 'DONE' }]);
  });

  it('accepts a time 29 days ahead', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(29 * 24 * 60) }),
    );

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { webReqId: expect.any(String) } });
  });

  it('refuses a time 31 days ahead with 21030', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(31 * 24 * 60) }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21030' });
  });

  it('refuses a time in the past with 21030', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(-5) }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21030' });
  });
});

describe('status query', () => {
  it('goes from accepted to DONE with the report result', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'st');
    const cliKey = recvInfoLst[0]?.cliKey ?? '';
    await send('/msg/v1/sms', smsBody(recvInfoLst));
    const [before] = await statusOf([cliKey]);

    // Act
    await sim.advance(REPORT_DELAY_MS);
    const [after] = await statusOf([cliKey]);

    // Assess
    expect(['REG', 'ING']).toContain(before?.status);
    expect(after).toMatchObject({
      cliKey,
      status: 'DONE',
      msgKey: expect.any(String),
      resultCode: expect.stringMatching(/^\d{5}$/),
      rptDt: expect.any(String),
    });
  });

  it('answers INVALID_KEY for an unknown key or a wrong date, OVER_DATE beyond 90 days', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'st');
    const cliKey = recvInfoLst[0]?.cliKey ?? '';
    await send('/msg/v1/sms', smsBody(recvInfoLst));
    const yesterday = formatKst(sim.clock.now() - 86_400_000, 'YYYY-MM-DD');
    const longAgo = formatKst(sim.clock.now() - 91 * 86_400_000, 'YYYY-MM-DD');

    // Act
    const unknown = await statusOf(['never-sent']);
    const wrongDate = await statusOf([cliKey], yesterday);
    const overDate = await statusOf([cliKey], longAgo);

    // Assess
    expect(unknown).toEqual([{ cliKey: 'never-sent', status: 'INVALID_KEY' }]);
    expect(wrongDate).toMatchObject([{ cliKey, status: 'INVALID_KEY' }]);
    expect(overDate).toMatchObject([{ cliKey, status: 'OVER_DATE' }]);
  });
});
