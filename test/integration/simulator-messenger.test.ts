/**
 * The simulator's messenger management API (spec 02) over loopback, with raw HTTP: its own
 * request checks, and the review request after a rejection that only internal-approval customers
 * may make (`internalApproval`).
 */
import { describe, expect, it } from 'vitest';
import { MESSENGER_CODES, simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import type { SimulatorOptionsInput } from '../../simulator/options.ts';
import { simulatorsPerTest } from '../support/sim-started.ts';
import { asList, asObject, callGateway } from '../support/simulator-http.ts';

const CREDENTIALS = { apiKey: 'msgr-key', apiPassword: 'msgr-secret' };
const ADMIN = '01012345678';
const CHANNEL = '@sim-shop';

const simulators = simulatorsPerTest(CREDENTIALS);

/** A simulator with one registered channel, and a caller holding a token. */
const start = async (options: Partial<SimulatorOptionsInput> = {}) => {
  const { sim, token } = await simulators.start(options);
  const post = (path: string, body: unknown) =>
    callGateway(sim, { method: 'POST', path, token, body });
  const sent = await post('/msgr/v2/channel/token', {
    phoneNumber: ADMIN,
    msgrChId: CHANNEL,
    relay: 'r01',
  });
  expect(sent.body).toMatchObject({ code: '10000' });
  const created = await post('/msgr/v2/channel/create', {
    msgrChId: CHANNEL,
    categoryCode: '00100010001',
    tokens: [
      { rid: 'r01', phoneNumber: ADMIN, token: simulatedChannelToken(CHANNEL, ADMIN, 'r01') },
    ],
  });
  expect(created.body).toMatchObject({ code: '10000' });
  return { sim, token, post };
};

const templateBody = (templateCode: string) => ({
  msgrChId: CHANNEL,
  templateCode,
  templateName: 'Order shipped',
  templateContent: 'Hello #{name}, your order has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA',
  templateEmphasizeType: 'NONE',
});

/** Creates a template, requests review and has the platform reject it (T → R → Q → S). */
const rejectedTemplate = async (
  { sim, post }: Awaited<ReturnType<typeof start>>,
  templateCode: string,
) => {
  const created = await post('/msgr/v2/channel/template/create', templateBody(templateCode));
  const templateKey = String(asObject(asObject(created.body).data).templateKey);
  const requested = await post('/msgr/v2/channel/template/request', {
    msgrChId: CHANNEL,
    templateCode,
  });
  expect(requested.body).toMatchObject({ code: '10000' });
  for (const status of ['Q', 'S']) {
    const moved = await callGateway(sim, {
      method: 'POST',
      path: `/_sim/messenger/templates/${templateKey}/status`,
      body: { status },
    });
    expect(moved.body).toMatchObject({ code: '10000', data: { templateStatusCode: status } });
  }
  return templateKey;
};

const statusOf = async (
  { post }: Awaited<ReturnType<typeof start>>,
  templateCode: string,
): Promise<unknown> => {
  const listed = await post('/msgr/v2/channel/template/all', { msgrChId: CHANNEL });
  return asList(asObject(listed.body).data).find((row) => row.templateCode === templateCode)
    ?.templateStatusCode;
};

describe('review request after a rejection', () => {
  it('is refused by default (the §4.3 reading): the template stays S', async () => {
    // Prepare
    const sim = await start();
    await rejectedTemplate(sim, 'rej-1');

    // Act
    const again = await sim.post('/msgr/v2/channel/template/request', {
      msgrChId: CHANNEL,
      templateCode: 'rej-1',
    });

    // Assess
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: MESSENGER_CODES.templateNotInT,
      message: 'cannot request template rej-1: its status is S',
    });
    expect(await statusOf(sim, 'rej-1')).toBe('S');
  });

  it('succeeds with internalApproval (the §3 reading): S → R, while delete still needs T', async () => {
    // Prepare
    const sim = await start({ internalApproval: true });
    await rejectedTemplate(sim, 'rej-2');
    await rejectedTemplate(sim, 'rej-3');

    // Act
    const again = await sim.post('/msgr/v2/channel/template/request', {
      msgrChId: CHANNEL,
      templateCode: 'rej-2',
      comment: 'fixed the wording',
    });
    const deleted = await sim.post('/msgr/v2/channel/template/delete', {
      msgrChId: CHANNEL,
      templateCode: 'rej-3',
    });
    const fromR = await sim.post('/msgr/v2/channel/template/request', {
      msgrChId: CHANNEL,
      templateCode: 'rej-2',
    });

    // Assess
    expect(again.body).toMatchObject({ code: '10000' });
    expect(await statusOf(sim, 'rej-2')).toBe('R');
    expect(deleted.body).toMatchObject({ code: MESSENGER_CODES.templateNotInT });
    expect(await statusOf(sim, 'rej-3')).toBe('S');
    expect(fromR.body).toMatchObject({ code: MESSENGER_CODES.templateNotInT });
  });

  it('the review control refuses an unknown state and an unknown template', async () => {
    // Prepare
    const sim = await start();
    const created = await sim.post('/msgr/v2/channel/template/create', templateBody('ctl-1'));
    const templateKey = String(asObject(asObject(created.body).data).templateKey);

    // Act
    const badState = await callGateway(sim.sim, {
      method: 'POST',
      path: `/_sim/messenger/templates/${templateKey}/status`,
      body: { status: 'X' },
    });
    const unknown = await callGateway(sim.sim, {
      method: 'POST',
      path: '/_sim/messenger/templates/TK-none/status',
      body: { status: 'A' },
    });

    // Assess
    expect(badState.body).toMatchObject({ code: MESSENGER_CODES.invalidField });
    expect(unknown.body).toMatchObject({ code: MESSENGER_CODES.unknownTemplate });
    expect(await statusOf(sim, 'ctl-1')).toBe('T');
  });
});

describe("the simulator's own spec 02 request checks", () => {
  it.each([
    [
      'templateAd counted inside the 1000 characters of templateContent',
      '/msgr/v2/channel/template/create',
      { ...templateBody('ad-1'), templateContent: 'x'.repeat(990), templateAd: 'y'.repeat(11) },
      /^templateAd: /,
    ],
    [
      'a highlight title without its description',
      '/msgr/v2/channel/template/create',
      { ...templateBody('hl-1'), itemHighlightTitle: 'Order' },
      /^itemHighlightDescription: required/,
    ],
    [
      'an item list of one entry (2 to 10)',
      '/msgr/v2/channel/template/create',
      { ...templateBody('il-1'), itemList: [{}] },
      /^itemList: /,
    ],
    [
      'a template code with a space',
      '/msgr/v2/channel/template/request',
      { msgrChId: CHANNEL, templateCode: 'has space' },
      /^templateCode: /,
    ],
    [
      'a group template without msgrGrpId',
      '/msgr/v2/channel/template/all',
      { msgrChId: CHANNEL, senderType: 'G' },
      /^msgrGrpId: required when senderType is G/,
    ],
    [
      'a comment without its text',
      '/msgr/v2/channel/template/comment',
      { msgrChId: CHANNEL, templateCode: 'x' },
      /^comment: /,
    ],
    [
      'a 62-character channel id',
      '/msgr/v2/channel/get',
      { msgrChId: `@${'x'.repeat(61)}` },
      /^msgrChId: /,
    ],
    [
      'a period list date that is not YYYYMMDDHHMMSS',
      '/msgr/v2/msgrChannelList',
      { standardDateTime: '2025-01-01' },
      /^standardDateTime: /,
    ],
    [
      'a 12-digit administrator number',
      '/msgr/v2/channel/token',
      { phoneNumber: '010123456789', msgrChId: CHANNEL, relay: 'r01' },
      /^phoneNumber: /,
    ],
    [
      'an unknown field',
      '/msgr/v2/channel/get',
      { msgrChId: CHANNEL, extra: 1 },
      /^\(body\): |^extra/,
    ],
  ])('refuses %s with 21001', async (_name, path, body, message) => {
    // Prepare
    const sim = await start();

    // Act
    const answer = await sim.post(path, body);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: MESSENGER_CODES.invalidField,
      message: expect.stringMatching(message),
    });
  });

  it('refuses elapsedDay 3 and a 30 February date in a statistics query', async () => {
    // Prepare
    const { sim, token } = await start();
    const stat = (query: string) =>
      callGateway(sim, {
        method: 'GET',
        path: `/msgr/v2/stat/msgrChId/noticeRead?${query}`,
        token,
      });

    // Act
    const ok = await stat(`msgrChId=${encodeURIComponent(CHANNEL)}&date=20250301&elapsedDay=2`);
    const day3 = await stat(`msgrChId=${encodeURIComponent(CHANNEL)}&date=20250301&elapsedDay=3`);
    const feb30 = await stat(`msgrChId=${encodeURIComponent(CHANNEL)}&date=20250230&elapsedDay=0`);

    // Assess
    expect(ok.body).toMatchObject({ code: '10000', data: [{ msgrChId: CHANNEL }] });
    expect(day3.body).toMatchObject({
      code: '21001',
      message: expect.stringMatching(/^elapsedDay: /),
    });
    expect(feb30.body).toMatchObject({ code: '21001', message: expect.stringMatching(/^date: /) });
  });
});
