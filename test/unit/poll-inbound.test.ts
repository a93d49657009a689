import { describe, expect, it } from 'vitest';
import { moItem } from '../../fixtures/gateway-bodies.ts';
import {
  MO_POLLER_LEASE,
  type MoPollingGateway,
  pollInbound,
} from '../../functions/polling/poll-use-case.ts';
import type { PollLogger } from '../../functions/polling/poller-lease.ts';
import { MoListDataSchema } from '../../gateway/schemas/index.ts';
import { FakeMoGateway, harness, moPage, silent } from '../support/poll-harness.ts';

describe('pollInbound', () => {
  it('stores every polled MO message once, polls again at once after a page, 10 s after none', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 40_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2), moPage(3), [], moPage(2)]);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000001',
      'MO#MO00000002',
      'MO#MO00000003',
    ]);
    expect(h.store.details('mo').every((d) => d.metadata.via === 'polling')).toBe(true);
    const [first, second, empty, afterEmpty] = gateway.calls;
    expect(second?.at).toBe(first?.at);
    expect((afterEmpty?.at ?? 0) - (empty?.at ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect(outcome).toMatchObject({
      messagesPolled: 4,
      messagesStored: 3,
      messagesDuplicate: 1,
      messagesNotStored: 0,
    });
    expect(h.lease.calls[0]).toBe(`acquire ${MO_POLLER_LEASE}`);
  });

  it('stores a page again when its store asked for a retry, since the gateway will not repeat it', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2, 3)]);
    h.store.failNext(2);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo')).toHaveLength(3);
    expect(outcome).toMatchObject({
      messagesStored: 3,
      messagesDuplicate: 0,
      messagesNotStored: 0,
    });
  });

  it('keeps a page it could not store after every attempt in durable quarantine, and the next run stores it', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2)]);
    h.store.failKey('MO#MO00000002');

    // Act
    const outcome = await pollInbound(h.deps(gateway));
    h.store.heal();
    const next = await pollInbound(
      h.deps(new FakeMoGateway(h.clock, []), { owner: 'run-2', deadline: h.clock.now() + 30_000 }),
    );

    // Assess: three attempts, 1 s and 2 s apart, then kept; nothing counted as lost.
    expect(h.store.puts).toBe(6 + 2);
    expect(outcome).toMatchObject({ messagesStored: 1, messagesNotStored: 0, pagesQuarantined: 1 });
    expect(next).toMatchObject({
      pagesReingested: 1,
      quarantinedPagesLeft: 0,
      messagesStored: 1,
      messagesDuplicate: 1,
    });
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000001',
      'MO#MO00000002',
    ]);
    expect(h.quarantine.pages.size).toBe(0);
  });

  it('counts the messages neither stored nor kept (the double fault)', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2)]);
    h.store.failKey('MO#MO00000002');
    h.quarantine.failKeeps(1);
    const errors: string[] = [];
    const logger: PollLogger = { ...silent, error: (message) => errors.push(message) };

    // Act
    const outcome = await pollInbound(h.deps(gateway, { logger }));

    // Assess
    expect(outcome).toMatchObject({ messagesStored: 1, messagesNotStored: 1, pagesQuarantined: 0 });
    expect(errors.some((message) => message.includes('neither stored nor kept'))).toBe(true);
  });

  it('stores every message of a page with an empty contentSize, and quarantines a numeric moKey', async () => {
    // Prepare: the list as the client reads it.
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const attachment = {
      contentName: 'a.jpg',
      contentSize: '',
      contentExt: 'jpg',
      contentUrl: 'https://f/a',
    };
    const list = MoListDataSchema.parse([
      moItem(11),
      moItem(12, { contentCnt: '', contentInfoLst: [attachment] }),
      moItem(13),
    ]);
    const withOdd = MoListDataSchema.parse([moItem(14), moItem(15, { moKey: 15 })]);
    const gateway = new FakeMoGateway(h.clock, [list, withOdd]);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000011',
      'MO#MO00000012',
      'MO#MO00000013',
      'MO#MO00000014',
    ]);
    const withAttachment = h.store.details('mo').find((d) => d.data.moKey === 'MO00000012');
    expect(withAttachment?.data).toMatchObject({
      attachmentCount: 1,
      attachments: [{ name: 'a.jpg', sizeBytes: null, extension: 'jpg' }],
    });
    expect(h.store.ofKind('quarantine')).toHaveLength(1);
    expect(outcome).toMatchObject({ messagesPolled: 5, messagesStored: 4, itemsQuarantined: 1 });
  });
});
