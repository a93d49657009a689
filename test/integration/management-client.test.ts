import { Blob } from 'node:buffer';
import { createHash } from 'node:crypto';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayRejectedError } from '../../functions/commons/gateway/errors.ts';
import { GatewayAuthApi } from '../../functions/commons/gateway/gateway-auth.ts';
import { GatewayRequestInvalidError } from '../../functions/commons/gateway/gateway-client.ts';
import { type HttpCall, undiciTransport } from '../../functions/commons/gateway/http.ts';
import {
  GatewayManagementClient,
  TemplateStateError,
} from '../../functions/commons/gateway/management-client.ts';
import { MESSENGER_STATS } from '../../functions/commons/gateway/schemas/index.ts';
import { SessionTokenProvider } from '../../functions/commons/gateway/session-token-provider.ts';
import type { TokenProvider } from '../../functions/commons/gateway/token-provider.ts';
import { formatKst } from '../../protocol/kst.ts';
import { MESSENGER_CODES, simulatedChannelToken } from '../../simulator/messenger.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import { asObject, authenticate, callGateway } from '../support/simulator-http.ts';

const credentials = { apiKey: 'mgmt-key', apiPassword: 'mgmt-secret' };
const ADMIN = '01012345678';
const CATEGORY = '00100010001';
const GROUP = 'G-sim-0001';

let sim: Simulator;
let sessions: SessionTokenProvider;
let client: GatewayManagementClient;
/** Every token the client asked for: one per gateway call (no authentication retries here). */
let tokenRequests = 0;

/** The error a call failed with; fails the test when the call succeeds. */
const failureOf = async (call: Promise<unknown>): Promise<unknown> => {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

const rejectedWith = (code: string) =>
  expect.objectContaining({ name: 'GatewayRejectedError', code });

/** Registers a channel the way an operator does: token to the administrator, then create. */
const registerChannel = async (msgrChId: string) => {
  await client.requestChannelToken({ phoneNumber: ADMIN, msgrChId, relay: 'r01' });
  await client.createChannel({
    msgrChId,
    categoryCode: CATEGORY,
    tokens: [
      { rid: 'r01', phoneNumber: ADMIN, token: simulatedChannelToken(msgrChId, ADMIN, 'r01') },
    ],
  });
};

const templateBody = (msgrChId: string, templateCode: string) => ({
  msgrChId,
  templateCode,
  templateName: 'Order shipped',
  templateContent: 'Hello #{name}, your order #{order} has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA' as const,
  templateEmphasizeType: 'NONE' as const,
});

beforeAll(async () => {
  sim = await startSimulator({
    ...credentials,
    port: 0,
    clock: 'manual',
    accessTokenTtlSeconds: 86_400,
  });
  sessions = new SessionTokenProvider({
    auth: new GatewayAuthApi({ hosts: sim.hosts }),
    credentials: () => credentials,
    now: () => sim.clock.now(),
  });
  const counting: TokenProvider = {
    getToken: () => {
      tokenRequests += 1;
      return sessions.getToken();
    },
    invalidate: (token) => sessions.invalidate(token),
  };
  client = new GatewayManagementClient({ hosts: sim.hosts, tokens: counting, timeoutMs: 2_000 });
});

afterAll(async () => {
  await sim.close();
});

describe('categories and relays', () => {
  it('lists template categories, channel categories and relay ids', async () => {
    // Act
    const templateCategories = await client.listTemplateCategories();
    const channelCategories = await client.listChannelCategories();
    const relays = await client.relayInfo();

    // Assess
    expect(templateCategories[0]).toMatchObject({ code: '001001', iclusion: expect.any(String) });
    expect(channelCategories.map((c) => c.code)).toContain(CATEGORY);
    expect(relays.relay).toEqual(['r01', 'r02']);
  });
});

describe('channels', () => {
  it('registers a channel with the relay token, then shows it in the detail and the period list', async () => {
    // Prepare
    const since = formatKst(sim.clock.now(), 'YYYYMMDDHHmmss');

    // Act
    const sent = await client.requestChannelToken({
      phoneNumber: ADMIN,
      msgrChId: '@shop',
      relay: 'r01',
    });
    await client.createChannel({
      msgrChId: '@shop',
      categoryCode: CATEGORY,
      memo: 'main shop',
      tokens: [
        { rid: 'r01', phoneNumber: ADMIN, token: simulatedChannelToken('@shop', ADMIN, 'r01') },
      ],
    });
    const detail = await client.getChannel('@shop');
    const listed = await client.listChannels({ standardDateTime: since, page: 1, pageSize: 10 });

    // Assess
    expect(sent).toMatchObject({ phoneNumber: ADMIN, msgrChId: '@shop', relay: 'r01' });
    expect(detail).toMatchObject({ msgrChId: '@shop', stat: 'A', categoryCode: CATEGORY });
    expect(listed).toContainEqual(
      expect.objectContaining({ msgrChId: '@shop', msgrChStat: 'A', categoryCode: CATEGORY }),
    );
  });

  it('refuses a wrong relay token and an unknown relay', async () => {
    // Act
    const wrongToken = await failureOf(
      client.createChannel({
        msgrChId: '@nope',
        categoryCode: CATEGORY,
        tokens: [{ rid: 'r01', phoneNumber: ADMIN, token: 1 }],
      }),
    );
    const unknownRelay = await failureOf(
      client.requestChannelToken({
        phoneNumber: ADMIN,
        msgrChId: '@nope',
        relay: 'r99',
      }),
    );

    // Assess
    expect(wrongToken).toEqual(rejectedWith(MESSENGER_CODES.badChannelToken));
    expect(unknownRelay).toEqual(rejectedWith(MESSENGER_CODES.unknownRelay));
  });

  it('restores a deleted channel and recovers a dormant one, and refuses both in state A', async () => {
    // Prepare
    await registerChannel('@sleepy');
    await callGateway(sim, {
      method: 'POST',
      path: '/_sim/messenger/channels/@sleepy/stat',
      body: { stat: 'P' },
    });

    // Act
    await client.recoverChannel('@sleepy');
    const afterRecover = await client.getChannel('@sleepy');
    await callGateway(sim, {
      method: 'POST',
      path: '/_sim/messenger/channels/@sleepy/stat',
      body: { stat: 'D' },
    });
    await client.restoreChannel('@sleepy');
    const afterRestore = await client.getChannel('@sleepy');

    // Assess
    expect(afterRecover.stat).toBe('A');
    expect(afterRestore.stat).toBe('A');
    await expect(client.restoreChannel('@sleepy')).rejects.toEqual(
      rejectedWith(MESSENGER_CODES.channelStateConflict),
    );
    await expect(client.recoverChannel('@sleepy')).rejects.toEqual(
      rejectedWith(MESSENGER_CODES.channelStateConflict),
    );
  });

  it('validates requests before any call', async () => {
    // Prepare
    const before = tokenRequests;

    // Act
    const tooLong = await failureOf(client.getChannel('x'.repeat(62)));
    const badDate = await failureOf(client.listChannels({ standardDateTime: '2025-01-01' }));

    // Assess
    expect(tooLong).toBeInstanceOf(GatewayRequestInvalidError);
    expect(badDate).toBeInstanceOf(GatewayRequestInvalidError);
    expect(tokenRequests).toBe(before);
  });
});

describe('channel groups', () => {
  it('adds a channel to a group once, lists it both ways, and removes it', async () => {
    // Prepare
    await registerChannel('@grouped');

    // Act
    const added = await client.addChannelToGroup({ chGrpKey: GROUP, msgrChId: '@grouped' });
    const again = await client
      .addChannelToGroup({ chGrpKey: GROUP, msgrChId: '@grouped' })
      .catch((error: unknown) => error);
    const groups = await client.listGroups();
    const members = await client.listGroupMembers(GROUP);
    const ofChannel = await client.listGroupsOfChannel('@grouped');
    const removed = await client.removeChannelFromGroup({ chGrpKey: GROUP, msgrChId: '@grouped' });
    const membersAfter = await client.listGroupMembers(GROUP);

    // Assess
    expect(added).toEqual({ chGrpKey: GROUP, msgrChId: '@grouped' });
    expect(again).toEqual(rejectedWith(MESSENGER_CODES.alreadyInGroup));
    expect(groups).toContainEqual(
      expect.objectContaining({ chGrpKey: GROUP, chGrpStatCd: 'A', updDt: null }),
    );
    expect(members).toEqual([expect.objectContaining({ chGrpKey: GROUP, msgrChId: '@grouped' })]);
    expect(ofChannel).toEqual([expect.objectContaining({ chGrpKey: GROUP })]);
    expect(removed).toEqual({ chGrpKey: GROUP, msgrChId: '@grouped' });
    expect(membersAfter).toEqual([]);
    expect((await client.getChannel('@grouped')).stat).toBe('A');
    await expect(
      client.removeChannelFromGroup({ chGrpKey: GROUP, msgrChId: '@grouped' }),
    ).rejects.toEqual(rejectedWith(MESSENGER_CODES.notInGroup));
  });
});

describe('templates', () => {
  it('creates a template in T, comments it, requests review (T → R), then refuses request and delete before any call', async () => {
    // Prepare
    await registerChannel('@tmpl');

    // Act
    const created = await client.createTemplate(templateBody('@tmpl', 'ship-1'));
    const listedT = await client.listTemplates({ msgrChId: '@tmpl' });
    await client.commentTemplate({ msgrChId: '@tmpl', templateCode: 'ship-1', comment: 'ready' });
    await client.requestTemplateReview({ msgrChId: '@tmpl', templateCode: 'ship-1' });
    const listedR = await client.listTemplates({ msgrChId: '@tmpl', senderType: 'S' });
    const beforeRefusals = tokenRequests;
    const deleteKnownR = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl', templateCode: 'ship-1' }, { currentStatus: 'R' }),
    );
    const requestKnownR = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@tmpl', templateCode: 'ship-1' },
        { currentStatus: 'R' },
      ),
    );

    // Assess
    expect(created).toMatchObject({
      templateCode: 'ship-1',
      templateName: 'Order shipped',
      msgrChId: '@tmpl',
      templateInfo: { senderType: 'S', templateMessageType: 'BA' },
    });
    expect(listedT).toEqual([
      expect.objectContaining({ templateCode: 'ship-1', templateStatusCode: 'T' }),
    ]);
    expect(listedR).toEqual([
      expect.objectContaining({ templateCode: 'ship-1', templateStatusCode: 'R' }),
    ]);
    expect(deleteKnownR).toBeInstanceOf(TemplateStateError);
    expect(requestKnownR).toMatchObject({
      name: 'TemplateStateError',
      operation: 'request',
      status: 'R',
    });
    expect(tokenRequests).toBe(beforeRefusals);
  });

  it('reads the state first when the caller does not give it: delete in R sends no delete', async () => {
    // Prepare
    await registerChannel('@tmpl2');
    await client.createTemplate(templateBody('@tmpl2', 'ship-2'));
    await client.requestTemplateReview({ msgrChId: '@tmpl2', templateCode: 'ship-2' });
    const before = tokenRequests;

    // Act
    const refused = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl2', templateCode: 'ship-2' }),
    );

    // Assess
    expect(refused).toMatchObject({ operation: 'delete', status: 'R' });
    expect(tokenRequests).toBe(before + 1); // the list read only
    expect(await client.listTemplates({ msgrChId: '@tmpl2' })).toHaveLength(1);
  });

  it('deletes a template in T; it is gone afterwards', async () => {
    // Prepare
    await registerChannel('@tmpl3');
    await client.createTemplate(templateBody('@tmpl3', 'temp-3'));

    // Act
    await client.deleteTemplate({ msgrChId: '@tmpl3', templateCode: 'temp-3' });

    // Assess
    expect(await client.listTemplates({ msgrChId: '@tmpl3' })).toEqual([]);
    await expect(
      client.deleteTemplate({ msgrChId: '@tmpl3', templateCode: 'temp-3' }),
    ).rejects.toMatchObject({ name: 'TemplateStateError', status: undefined });
  });

  it('the simulator itself refuses request and delete outside T', async () => {
    // Prepare: the caller claims T, so the client sends the call
    await registerChannel('@tmpl4');
    await client.createTemplate(templateBody('@tmpl4', 'ship-4'));
    await client.requestTemplateReview({ msgrChId: '@tmpl4', templateCode: 'ship-4' });

    // Act
    const deleted = await failureOf(
      client.deleteTemplate({ msgrChId: '@tmpl4', templateCode: 'ship-4' }, { currentStatus: 'T' }),
    );

    // Assess
    expect(deleted).toBeInstanceOf(GatewayRejectedError);
    expect(deleted).toEqual(rejectedWith(MESSENGER_CODES.templateNotInT));
  });

  it('refuses a duplicate template code and a template for an unknown channel', async () => {
    // Prepare
    await registerChannel('@tmpl5');
    await client.createTemplate(templateBody('@tmpl5', 'dup'));

    // Act
    const duplicate = await failureOf(client.createTemplate(templateBody('@tmpl5', 'dup')));
    const unknown = await failureOf(client.createTemplate(templateBody('@ghost', 'x')));

    // Assess
    expect(duplicate).toEqual(rejectedWith(MESSENGER_CODES.templateCodeTaken));
    expect(unknown).toEqual(rejectedWith(MESSENGER_CODES.unknownChannel));
  });
});

/** Moves a template through the platform's review by hand (the spec gives it no trigger). */
const setTemplateStatus = async (target: Simulator, templateKey: string, status: string) => {
  const answer = await callGateway(target, {
    method: 'POST',
    path: `/_sim/messenger/templates/${templateKey}/status`,
    body: { status },
  });
  expect(answer.body).toMatchObject({ code: '10000' });
};

describe('review request after a rejection (internal-approval customers)', () => {
  it('refuses a rejected (S) template without afterRejection, before any request call', async () => {
    // Prepare: a template rejected by the platform
    await registerChannel('@rejected');
    const created = await client.createTemplate(templateBody('@rejected', 'rej-1'));
    await client.requestTemplateReview({ msgrChId: '@rejected', templateCode: 'rej-1' });
    await setTemplateStatus(sim, String(created.templateKey), 'S');
    const before = tokenRequests;

    // Act
    const known = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@rejected', templateCode: 'rej-1' },
        { currentStatus: 'S' },
      ),
    );
    const callsWhenKnown = tokenRequests - before;
    const read = await failureOf(
      client.requestTemplateReview({ msgrChId: '@rejected', templateCode: 'rej-1' }),
    );

    // Assess
    expect(known).toMatchObject({
      name: 'TemplateStateError',
      operation: 'request',
      status: 'S',
      message: 'cannot request template rej-1: its status is S, request needs T',
    });
    expect(callsWhenKnown).toBe(0);
    expect(read).toMatchObject({ name: 'TemplateStateError', status: 'S' });
    expect(tokenRequests - before).toBe(1); // the list read only, no review request
    expect(await client.listTemplates({ msgrChId: '@rejected' })).toEqual([
      expect.objectContaining({ templateCode: 'rej-1', templateStatusCode: 'S' }),
    ]);
  });

  it('with afterRejection requests review of an S template against an internal-approval gateway (S → R)', async () => {
    // Prepare: a second simulator whose API key is an internal-approval customer's
    const internal = await startSimulator({
      ...credentials,
      port: 0,
      clock: 'manual',
      accessTokenTtlSeconds: 86_400,
      internalApproval: true,
    });
    try {
      const tokens = new SessionTokenProvider({
        auth: new GatewayAuthApi({ hosts: internal.hosts }),
        credentials: () => credentials,
        now: () => internal.clock.now(),
      });
      const approvalClient = new GatewayManagementClient({
        hosts: internal.hosts,
        tokens,
        timeoutMs: 2_000,
      });
      await approvalClient.requestChannelToken({
        phoneNumber: ADMIN,
        msgrChId: '@internal',
        relay: 'r01',
      });
      await approvalClient.createChannel({
        msgrChId: '@internal',
        categoryCode: CATEGORY,
        tokens: [
          {
            rid: 'r01',
            phoneNumber: ADMIN,
            token: simulatedChannelToken('@internal', ADMIN, 'r01'),
          },
        ],
      });
      const created = await approvalClient.createTemplate(templateBody('@internal', 'rej-2'));
      await approvalClient.requestTemplateReview({ msgrChId: '@internal', templateCode: 'rej-2' });
      await setTemplateStatus(internal, String(created.templateKey), 'S');

      // Act
      await approvalClient.requestTemplateReview(
        { msgrChId: '@internal', templateCode: 'rej-2', comment: 'wording fixed' },
        { afterRejection: true },
      );

      // Assess
      expect(await approvalClient.listTemplates({ msgrChId: '@internal' })).toEqual([
        expect.objectContaining({ templateCode: 'rej-2', templateStatusCode: 'R' }),
      ]);
      const held = asObject(
        asObject(
          (
            await callGateway(internal, {
              method: 'GET',
              path: `/_sim/messenger/templates/${String(created.templateKey)}`,
            })
          ).body,
        ).data,
      );
      expect(held.comments).toEqual(['wording fixed']);
    } finally {
      await internal.close();
    }
  });

  it('afterRejection still refuses the other states: R is neither T nor S', async () => {
    // Prepare
    const before = tokenRequests;

    // Act
    const refused = await failureOf(
      client.requestTemplateReview(
        { msgrChId: '@rejected', templateCode: 'rej-1' },
        { currentStatus: 'R', afterRejection: true },
      ),
    );

    // Assess
    expect(refused).toMatchObject({
      name: 'TemplateStateError',
      status: 'R',
      message: 'cannot request template rej-1: its status is R, request needs T or S',
    });
    expect(tokenRequests).toBe(before);
  });
});

/** A 1×1 PNG and a tiny JPEG (signature, JFIF header, end marker): real files, a few bytes. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const thumbnail = { fileName: 'thumb.png', contentType: 'image/png', data: PNG };
const banner = { fileName: 'banner.jpg', contentType: 'image/jpeg', data: JPEG };
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** What the simulator holds for a template (`GET /_sim/messenger/templates/{templateKey}`). */
const simTemplate = async (templateKey: string) => {
  const answer = await callGateway(sim, {
    method: 'GET',
    path: `/_sim/messenger/templates/${templateKey}`,
  });
  return asObject(asObject(answer.body).data);
};

const highlighted = (msgrChId: string, templateCode: string, title: string, text: string) => ({
  ...templateBody(msgrChId, templateCode),
  templateEmphasizeType: 'ITEM_LIST' as const,
  itemHighlightTitle: title,
  itemHighlightDescription: text,
});

describe('template create with images (multipart)', () => {
  it('creates a template with image and itemHighlightImage; it lists, and the simulator holds both files', async () => {
    // Prepare
    await registerChannel('@img');

    // Act
    const created = await client.createTemplate(
      highlighted('@img', 'img-1', 'Order #1234', 'Shipped today'),
      { image: banner, itemHighlightImage: thumbnail },
    );
    const listed = await client.listTemplates({ msgrChId: '@img' });
    const held = await simTemplate(String(created.templateKey));
    const images = asObject(held.images);
    const servedThumbnail = await request(String(asObject(images.itemHighlightImage).url));

    // Assess
    expect(created).toMatchObject({ templateCode: 'img-1', msgrChId: '@img' });
    expect(listed).toEqual([
      expect.objectContaining({
        templateKey: created.templateKey,
        templateCode: 'img-1',
        templateStatusCode: 'T',
      }),
    ]);
    expect(held.reqBody).toMatchObject({ itemHighlightTitle: 'Order #1234' });
    expect(images.image).toMatchObject({
      fileName: 'banner.jpg',
      contentType: 'image/jpeg',
      size: JPEG.byteLength,
      sha256: sha256(JPEG),
    });
    expect(images.itemHighlightImage).toMatchObject({
      fileName: 'thumb.png',
      contentType: 'image/png',
      size: PNG.byteLength,
      sha256: sha256(PNG),
    });
    expect(servedThumbnail.statusCode).toBe(200);
    expect(servedThumbnail.headers['content-type']).toBe('image/png');
    expect(Buffer.from(await servedThumbnail.body.arrayBuffer())).toEqual(PNG);
  });

  it('refuses a 22-character highlight title with a thumbnail before any call; without one it is created', async () => {
    // Prepare
    await registerChannel('@img2');
    const title = 't'.repeat(22);
    const before = tokenRequests;

    // Act
    const withThumbnail = await failureOf(
      client.createTemplate(highlighted('@img2', 'img-2', title, 'Shipped'), {
        itemHighlightImage: thumbnail,
      }),
    );
    const refusedCalls = tokenRequests - before;
    const withoutImage = await client.createTemplate(highlighted('@img2', 'img-2', title, 'x'));
    const withBannerOnly = await client.createTemplate(
      highlighted('@img2', 'img-3', title, 'x'.repeat(19)),
      { image: banner },
    );

    // Assess
    expect(withThumbnail).toBeInstanceOf(GatewayRequestInvalidError);
    expect(withThumbnail).toMatchObject({
      issues: [expect.objectContaining({ path: ['reqBody', 'itemHighlightTitle'] })],
    });
    expect(refusedCalls).toBe(0);
    expect(withoutImage.templateCode).toBe('img-2');
    expect(withBannerOnly.templateCode).toBe('img-3');
    const held = await simTemplate(String(withBannerOnly.templateKey));
    expect(Object.keys(asObject(held.images))).toEqual(['image']);
  });

  it('refuses an image type other than JPEG or PNG before any call, and so does the simulator', async () => {
    // Prepare
    await registerChannel('@img4');
    const gif = { fileName: 'anim.gif', contentType: 'image/gif', data: Buffer.from('GIF89a') };
    const before = tokenRequests;
    const { token } = await authenticate(sim, credentials);
    const form = new FormData();
    form.append(
      'reqBody',
      new Blob([JSON.stringify(templateBody('@img4', 'img-4'))], { type: 'application/json' }),
    );
    form.append('image', new Blob([gif.data], { type: gif.contentType }), gif.fileName);

    // Act
    const byClient = await failureOf(
      client.createTemplate(templateBody('@img4', 'img-4'), { image: gif }),
    );
    const clientCalls = tokenRequests - before;
    const bySimulator = await request(`${sim.url}/msgr/v2/channel/template/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });

    // Assess
    expect(byClient).toBeInstanceOf(GatewayRequestInvalidError);
    expect(byClient).toMatchObject({
      issues: [expect.objectContaining({ path: ['image', 'contentType'] })],
    });
    expect(clientCalls).toBe(0);
    expect(bySimulator.statusCode).toBe(400);
    expect(await bySimulator.body.json()).toMatchObject({
      code: MESSENGER_CODES.invalidField,
      message: expect.stringContaining('image.contentType'),
    });
    expect(await client.listTemplates({ msgrChId: '@img4' })).toEqual([]);
  });

  it('re-authenticates once when the token is revoked mid-way, and the retried multipart request carries every part', async () => {
    // Prepare: a client whose transport records each request body it sends
    await registerChannel('@img5');
    const sent: HttpCall[] = [];
    const recording = new GatewayManagementClient({
      hosts: sim.hosts,
      tokens: sessions,
      timeoutMs: 2_000,
      transport: (call) => {
        sent.push(call);
        return undiciTransport(call);
      },
    });
    await sessions.getToken();
    sim.revokeTokens();
    const authenticationsBefore = sim.snapshot().authentications;

    // Act
    const created = await recording.createTemplate(
      highlighted('@img5', 'img-5', 'Order #5', 'Shipped'),
      { image: banner, itemHighlightImage: thumbnail },
    );

    // Assess
    expect(sim.snapshot().authentications).toBe(authenticationsBefore + 1);
    expect(sent).toHaveLength(2);
    const [first, retried] = sent.map((call) => call.body);
    expect(retried).toBeInstanceOf(FormData);
    expect(retried).not.toBe(first);
    const parts = retried as FormData;
    expect([...parts.keys()]).toEqual(['reqBody', 'itemHighlightImage', 'image']);
    expect(sent[0]?.headers.authorization).not.toBe(sent[1]?.headers.authorization);
    const images = asObject((await simTemplate(String(created.templateKey))).images);
    expect(asObject(images.image).sha256).toBe(sha256(JPEG));
    expect(asObject(images.itemHighlightImage).sha256).toBe(sha256(PNG));
  });
});

describe('statistics', () => {
  it.each(Object.keys(MESSENGER_STATS) as (keyof typeof MESSENGER_STATS)[])(
    '%s answers a list for a registered channel',
    async (name) => {
      // Prepare
      await registerChannel(`@stats-${name}`);
      await client.createTemplate(templateBody(`@stats-${name}`, 'stat-1'));

      // Act
      const rows = await client.stats(name, {
        msgrChId: `@stats-${name}`,
        date: '20250301',
        elapsedDay: 1,
      });

      // Assess
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ date: '20250301', msgrChId: `@stats-${name}` });
    },
  );

  it('refuses elapsedDay outside 0..2 before the call, and an unknown channel at the gateway', async () => {
    // Act
    const badDay = await failureOf(
      client.stats('channelNoticeRead', {
        msgrChId: '@shop',
        date: '20250301',
        elapsedDay: '3' as '2',
      }),
    );
    const unknown = await failureOf(
      client.stats('channelNoticeRead', {
        msgrChId: '@ghost',
        date: '20250301',
        elapsedDay: '0',
      }),
    );

    // Assess
    expect(badDay).toBeInstanceOf(GatewayRequestInvalidError);
    expect(unknown).toEqual(rejectedWith(MESSENGER_CODES.unknownChannel));
  });
});
