import { describe, expect, it } from 'vitest';
import {
  CALLBACK,
  itemsOf,
  recipients,
  send,
  sim,
  smsBody,
  token,
  useSendingSimulator,
} from '../support/sending-simulator.ts';
import { callGateway } from '../support/simulator-http.ts';

useSendingSimulator();

describe('request validation', () => {
  /** An RCS message whose fallbacks are `fbInfoLst`. */
  const rcsWithFallbacks = (fbInfoLst: ReadonlyArray<{ ch: string; msg: string }>) => ({
    messagebaseId: 'TMPL-0001',
    callback: CALLBACK,
    header: '0',
    recvInfoLst: recipients(1),
    fbInfoLst,
  });

  it.each<[name: string, path: string, body: () => unknown, code: string]>([
    ['refuses 11 recipients with 21012', '/msg/v1/sms', () => smsBody(recipients(11)), '21012'],
    [
      'counts Hangul as 2 bytes: 46 syllables do not fit an SMS',
      '/msg/v1/sms',
      () => smsBody(recipients(1), { msg: '가'.repeat(46) }),
      '21001',
    ],
    [
      'refuses a fallback channel listed twice with 21051',
      '/msg/v1.1/rcs',
      () =>
        rcsWithFallbacks([
          { ch: 'SMS', msg: 'one' },
          { ch: 'SMS', msg: 'two' },
        ]),
      '21051',
    ],
    [
      'refuses other bad fallback info with 21014',
      '/msg/v1.1/rcs',
      // An MMS fallback needs a title.
      () => rcsWithFallbacks([{ ch: 'MMS', msg: 'no title' }]),
      '21014',
    ],
  ])('%s', async (_name, path, body, code) => {
    // Act
    const answer = await send(path, body());

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code });
  });

  it('accepts an SMS of exactly 90 bytes and refuses 91 bytes with 21001 naming msg', async () => {
    // Act
    const fits = await send('/msg/v1/sms', smsBody(recipients(1), { msg: 'a'.repeat(90) }));
    const tooLong = await send('/msg/v1/sms', smsBody(recipients(1), { msg: 'a'.repeat(91) }));

    // Assess
    expect(fits.status).toBe(200);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: '21001', message: expect.stringMatching(/^msg: /) });
  });

  it('refuses a fallback to the main channel with 21051', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { fbInfoLst: [{ ch: 'SMS', msg: 'again' }] }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: '21051',
      message: expect.stringContaining('fbInfoLst'),
    });
  });

  it('refuses a body that is not JSON with 21000', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      token,
      body: '{"callback":',
      headers: { 'content-type': 'application/json' },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21000' });
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    // Act
    const unknown = await callGateway(sim, { method: 'POST', path: '/msg/v9/sms', token });
    const wrongMethod = await callGateway(sim, { method: 'GET', path: '/msg/v1/sms', token });

    // Assess
    expect(unknown).toMatchObject({ status: 404, body: { code: '21404' } });
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: '21405' } });
  });
});

describe('duplicate cliKey', () => {
  it('answers 29024 for the repeated recipient only', async () => {
    // Prepare
    const [first, second] = recipients(2, 'dup');
    const fresh = recipients(1, 'fresh');
    if (!first || !second) throw new Error('two recipients expected');
    await send('/msg/v1/sms', smsBody([first, second]));

    // Act
    const answer = await send('/msg/v1/sms', smsBody([first, ...fresh]));

    // Assess
    expect(answer.status).toBe(200);
    const [repeated, accepted] = itemsOf(answer.body);
    expect(repeated).toMatchObject({ cliKey: first.cliKey, code: '29024' });
    expect(repeated).not.toHaveProperty('msgKey');
    expect(accepted).toMatchObject({
      cliKey: fresh[0]?.cliKey,
      code: '10000',
      msgKey: expect.any(String),
    });
  });
});
