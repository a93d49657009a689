import { describe, expect, it } from 'vitest';
import { GatewayRequestInvalidError } from '../../gateway/client.ts';
import { MESSENGER_STATS } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';
import { MESSENGER_CODES, simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import {
  ADMIN,
  CATEGORY,
  client,
  failureOf,
  registerChannel,
  rejectedWith,
  setChannelStat,
  sim,
  templateBody,
  tokenRequests,
  useManagementSimulator,
} from '../support/management-simulator.ts';

useManagementSimulator();

const GROUP = 'G-sim-0001';

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
    await setChannelStat('@sleepy', 'P');

    // Act
    await client.recoverChannel('@sleepy');
    const afterRecover = await client.getChannel('@sleepy');
    await setChannelStat('@sleepy', 'D');
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
