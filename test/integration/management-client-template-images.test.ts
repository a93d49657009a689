import { Blob } from 'node:buffer';
import { createHash } from 'node:crypto';
import { request, FormData as UndiciFormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { GatewayRequestInvalidError } from '../../gateway/client.ts';
import { GatewayManagementClient } from '../../gateway/management/messenger-client.ts';
import { type HttpCall, nodeTransport } from '../../gateway/transport.ts';
import { MESSENGER_CODES } from '../../simulator/messenger-seeds.ts';
import {
  client,
  credentials,
  failureOf,
  registerChannel,
  sessions,
  sim,
  simTemplate,
  templateBody,
  tokenRequests,
  useManagementSimulator,
} from '../support/management-simulator.ts';
import { asObject, authenticate } from '../support/simulator-http.ts';

useManagementSimulator();

/** A 1×1 PNG and a tiny JPEG (signature, JFIF header, end marker): real files, a few bytes. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

const thumbnail = { fileName: 'thumb.png', contentType: 'image/png', data: PNG };

const banner = { fileName: 'banner.jpg', contentType: 'image/jpeg', data: JPEG };

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

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
    const form = new UndiciFormData();
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
        return nodeTransport(call);
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
