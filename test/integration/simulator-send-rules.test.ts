/**
 * The simulator's own send rules, driven over HTTP with raw request bodies: each case shows the
 * simulator enforcing one rule of spec 01 (§2, §4.3–4.10, §8) or of the field notes by itself,
 * whatever the bridge believes.
 */

import { describe, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import {
  brandFree,
  brandTemplate,
  expectAccepted,
  expectRefused,
  key,
  mms,
  notice,
  openUrl,
  push,
  rcs,
  recipients,
  send,
  sim,
  sms,
  useRulesSimulator,
} from '../support/send-rules-simulator.ts';

useRulesSimulator();

describe('recipient limit (spec 01 §8: 10 per request)', () => {
  it.each([
    ['/msg/v1/sms', (n: number) => sms({ recvInfoLst: recipients(n) })],
    ['/msg/v1.1/rcs', (n: number) => rcs({ recvInfoLst: recipients(n) })],
    [
      '/msg/v1/push',
      (n: number) =>
        push({ recvInfoLst: recipients(n).map(({ cliKey }) => ({ cliKey, cuid: 'user' })) }),
    ],
    ['/msgr/brand/custom/v1', (n: number) => brandFree({ recvInfoLst: recipients(n) })],
  ])('%s accepts 10 recipients and refuses 11 with 21012', async (path, body) => {
    await expectAccepted(send(path, body(10)));
    await expectRefused(send(path, body(11)), '21012', 'recvInfoLst');
  });

  it('refuses an empty recipient list with 21001', async () => {
    await expectRefused(send('/msg/v1/sms', sms({ recvInfoLst: [] })), '21001', 'recvInfoLst');
  });
});

describe('CP949 byte limits and character limits per channel', () => {
  it('SMS msg: 45 Hangul syllables (90 bytes) fit, 46 do not', async () => {
    await expectAccepted(send('/xms/sms/v1', sms({ msg: '가'.repeat(45) })));
    await expectRefused(send('/xms/sms/v1', sms({ msg: '가'.repeat(46) })), '21001', 'msg');
  });

  it('SMS msg: an emoji CP949 cannot encode is refused even when short', async () => {
    const answer = send('/msg/v1/sms', sms({ msg: '주문 완료 😀' }));
    await expectRefused(answer, '21001', 'CP949');
  });

  it('MMS title: 20 Hangul syllables (40 bytes) fit, 21 do not', async () => {
    await expectAccepted(send('/xms/mms/v1', mms({ title: '가'.repeat(20) })));
    await expectRefused(send('/xms/mms/v1', mms({ title: '가'.repeat(21) })), '21001', 'title');
  });

  it('MMS msg: 1000 Hangul syllables (2000 bytes) fit, 1000 and one letter do not', async () => {
    await expectAccepted(send('/msg/v1/mms', mms({ msg: '가'.repeat(1_000) })));
    await expectRefused(
      send('/msg/v1/mms', mms({ msg: `${'가'.repeat(1_000)}a` })),
      '21001',
      'msg',
    );
  });

  it('notification msg counts characters: 1000 Hangul syllables fit, 1001 do not', async () => {
    await expectAccepted(send('/msgr/notice/v1.2', notice({ msg: '가'.repeat(1_000) })));
    await expectRefused(
      send('/msgr/notice/v1.2', notice({ msg: '가'.repeat(1_001) })),
      '21001',
      'msg',
    );
  });

  it('push msg counts characters: a 2000-character body fits, 2001 does not', async () => {
    const body = (length: number) => push({ msg: { title: 'Hi', body: '가'.repeat(length) } });
    await expectAccepted(send('/msg/v1/push', body(2_000)));
    await expectRefused(send('/msg/v1/push', body(2_001)), '21001', 'msg.body');
  });

  it('brand free content: TEXT takes 1300 characters, WIDE 76', async () => {
    const wide = { chatBubbleType: 'WIDE', imageUrl: 'https://img.example.com/1.jpg' };
    await expectAccepted(send('/msgr/brand/custom/v1', brandFree({ content: 'a'.repeat(1_300) })));
    await expectRefused(
      send('/msgr/brand/custom/v1', brandFree({ content: 'a'.repeat(1_301) })),
      '21001',
      'content',
    );
    await expectAccepted(
      send('/msgr/brand/custom/v1', brandFree({ ...wide, content: 'a'.repeat(76) })),
    );
    await expectRefused(
      send('/msgr/brand/custom/v1', brandFree({ ...wide, content: 'a'.repeat(77) })),
      '21001',
      'content',
    );
  });
});

describe('cliKey and phone (field notes)', () => {
  it('accepts a 30-character cliKey of letters, digits and - _ . @', async () => {
    const cliKey = `a.b@c-d_e${'x'.repeat(21)}`;
    await expectAccepted(
      send('/msg/v1/sms', sms({ recvInfoLst: [{ cliKey, phone: '01012345678' }] })),
    );
  });

  it.each([
    ['31 characters', 'x'.repeat(31)],
    ['a space', 'order 1'],
    ['a slash', 'order/1'],
    ['Hangul', '주문1'],
  ])('refuses a cliKey with %s', async (_label, cliKey) => {
    const body = sms({ recvInfoLst: [{ cliKey, phone: '01012345678' }] });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'recvInfoLst[0].cliKey');
  });

  it('accepts a phone with hyphens and refuses a + prefix or 21 characters', async () => {
    const withPhone = (phone: string) => sms({ recvInfoLst: [{ cliKey: key(), phone }] });
    await expectAccepted(send('/msg/v1/sms', withPhone('010-1234-5678')));
    await expectRefused(send('/msg/v1/sms', withPhone('+821012345678')), '21001', 'phone');
    await expectRefused(send('/msg/v1/sms', withPhone('0'.repeat(21))), '21001', 'phone');
  });

  it('a push recipient needs cuid but no phone', async () => {
    await expectAccepted(send('/msg/v1/push', push()));
    await expectRefused(
      send('/msg/v1/push', push({ recvInfoLst: [{ cliKey: key() }] })),
      '21001',
      'cuid',
    );
  });
});

describe('fallback rules', () => {
  it('refuses a fallback on a channel other than SMS or MMS with 21014', async () => {
    const body = rcs({ fbInfoLst: [{ ch: 'LMS', msg: 'text' }] });
    await expectRefused(send('/msg/v1.1/rcs', body), '21014', 'fbInfoLst[0].ch');
  });

  it('refuses an SMS fallback text over 90 bytes with 21014', async () => {
    const body = rcs({ fbInfoLst: [{ ch: 'SMS', msg: '가'.repeat(46) }] });
    await expectRefused(send('/msg/v1.1/rcs', body), '21014', 'fbInfoLst[0].msg');
  });

  it('refuses an MMS fallback with both fileId and fileIdLst with 21014', async () => {
    const fallback = { ch: 'MMS', title: 't', msg: 'm', fileId: 'F1', fileIdLst: ['F2'] };
    await expectRefused(send('/msg/v1.1/rcs', rcs({ fbInfoLst: [fallback] })), '21014');
  });

  it('refuses a fallback on a two-way reply with 21014', async () => {
    const body = {
      replyId: 'R-1',
      cliKey: key('bi'),
      messagebaseId: 'TMPL-CHAT',
      chatbotId: '15881234',
      telco: 'SKT',
      phone: '01099998888',
      body: { description: 'Thanks' },
      header: '0',
      fbInfoLst: [{ ch: 'SMS', msg: 'Thanks' }],
    };
    await expectRefused(send('/rcs/bi/v1.1', body), '21014', 'fbInfoLst');
  });

  it('refuses a push fallback for a recipient without the fallback number with 21014', async () => {
    const body = push({ fbInfoLst: [{ ch: 'SMS', msg: 'Your parcel is on its way' }] });
    await expectRefused(send('/msg/v1/push', body), '21014', 'recvInfoLst[0].phone');
  });

  it('refuses a fallback to the main channel, or a channel twice, with 21051', async () => {
    await expectRefused(
      send('/xms/mms/v1', mms({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm' }] })),
      '21051',
    );
    const twice = [
      { ch: 'MMS', title: 't', msg: 'one' },
      { ch: 'MMS', title: 't', msg: 'two' },
    ];
    await expectRefused(send('/msgr/notice/v1.2', notice({ fbInfoLst: twice })), '21051');
  });

  it('refuses a fallback without callback with 21024, on every channel that can fall back', async () => {
    const fallback = [{ ch: 'SMS', msg: 'fallback text' }];
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/msg/v1/sms', sms({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm' }] })],
      ['/msg/v1.1/rcs', rcs({ fbInfoLst: fallback })],
      ['/msg/v1/push', push({ fbInfoLst: fallback })],
      ['/msgr/notice/v1.2', notice({ fbInfoLst: fallback })],
      ['/msgr/brand/tmplt/v1', brandTemplate({ fbInfoLst: fallback })],
    ];
    for (const [path, body] of cases) {
      const { callback: _dropped, ...withoutCallback } = body;
      await expectRefused(send(path, withoutCallback), '21024', 'callback');
    }
  });

  it('answers a missing callback without a fallback with 21001, not 21024', async () => {
    const { callback: _dropped, ...withoutCallback } = rcs();
    await expectRefused(send('/msg/v1.1/rcs', withoutCallback), '21001', 'callback');
  });
});

describe('the 30-day scheduling horizon (21030)', () => {
  const at = (ms: number) => formatKst(sim.clock.now() + ms, 'YYYY-MM-DD HH:mm');
  const DAY = 86_400_000;

  it('accepts exactly 30 days ahead and refuses 30 days and a minute', async () => {
    await expectAccepted(send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: at(30 * DAY) })));
    await expectRefused(
      send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: at(30 * DAY + 60_000) })),
      '21030',
    );
  });

  it('applies to the messenger notification and brand paths too', async () => {
    const late = { resvYn: 'Y', resvReqDt: at(31 * DAY) };
    await expectRefused(send('/msgr/notice/v1.2', notice(late)), '21030');
    await expectRefused(send('/msgr/brand/tmplt/v1', brandTemplate(late)), '21030');
  });

  it('refuses resvYn Y without resvReqDt, or a time not written YYYY-MM-DD HH:mm', async () => {
    await expectRefused(send('/msg/v1/sms', sms({ resvYn: 'Y' })), '21030', 'resvReqDt');
    const iso = formatKst(sim.clock.now() + DAY, 'YYYY-MM-DD HH:mm').replace(' ', 'T');
    await expectRefused(send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: iso })), '21030');
  });
});

describe('template variables (spec 01 §2: filled from mergeData)', () => {
  it('accepts #{name} when every recipient has a value, and refuses the recipient without one', async () => {
    const msg = '#{name}님, 예약은 #{time}입니다';
    const filled = recipients(2, { mergeData: { name: '김민지', time: '10:30' } });
    await expectAccepted(send('/msg/v1/sms', sms({ msg, recvInfoLst: filled })));
    const second = recipients(2, { mergeData: { name: '김민지', time: '10:30' } });
    second[1] = { ...second[1], mergeData: { name: '이준호' } } as (typeof second)[number];
    await expectRefused(
      send('/msg/v1/sms', sms({ msg, recvInfoLst: second })),
      '21001',
      'recvInfoLst[1].mergeData.time',
    );
  });

  it('refuses a null value as no value', async () => {
    const body = sms({ msg: '#{name}', recvInfoLst: recipients(1, { mergeData: { name: null } }) });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'mergeData.name');
  });

  it('checks the filled SMS text against 90 bytes', async () => {
    const body = sms({
      msg: '#{name}님 안녕하세요',
      recvInfoLst: recipients(1, { mergeData: { name: '가'.repeat(40) } }),
    });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'filled in for recvInfoLst[0]');
  });

  it('reads #{name} in notification and push texts, and in every SMS/MMS fallback', async () => {
    await expectRefused(
      send('/msgr/notice/v1.2', notice({ msg: '#{name}님, 발송되었습니다' })),
      '21001',
      'mergeData.name',
    );
    await expectRefused(
      send('/msg/v1/push', push({ msg: { title: '#{name}', body: 'Hi' } })),
      '21001',
      'mergeData.name',
    );
    await expectRefused(
      send('/msg/v1.1/rcs', rcs({ fbInfoLst: [{ ch: 'SMS', msg: '#{orderNo} 접수' }] })),
      '21001',
      'mergeData.orderNo',
    );
  });

  it('reads {{name}} (not #{name}) in RCS buttons', async () => {
    const withVariable = rcs({ buttons: [openUrl('https://shop.example.com/o/{{orderNo}}')] });
    await expectRefused(send('/msg/v1.1/rcs', withVariable), '21001', 'mergeData.orderNo');
    const given = rcs({
      buttons: [openUrl('https://shop.example.com/o/{{orderNo}}')],
      recvInfoLst: recipients(1, { mergeData: { orderNo: 'A-1' } }),
    });
    await expectAccepted(send('/msg/v1.1/rcs', given));
    const hashSyntax = rcs({ buttons: [openUrl('https://shop.example.com/o/#{orderNo}')] });
    await expectAccepted(send('/msg/v1.1/rcs', hashSyntax));
  });
});
