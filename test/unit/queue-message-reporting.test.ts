import { describe, expect, it } from 'vitest';
import { jsonPath } from '../../functions/send-contract/queue-message.ts';
import {
  brandFree,
  mms,
  NOW,
  parsed,
  problemsOf,
  rcs,
  rcsReply,
  scheduled,
  sms,
} from '../support/queue-message-inputs.ts';

describe('parseSendMessage: reporting', () => {
  it('reports every problem of a message at once, each at its JSON path', () => {
    // Prepare
    const input = {
      channel: 'sms',
      variant: 'lms',
      callback: '0212345678',
      msg: `#{name} ${'가'.repeat(45)}`,
      resvYn: 'Y',
      resvReqDt: '2027-02-01 10:00',
      recvInfoLst: [
        { cliKey: 'a', phone: '01011112222', mergeData: { name: '김' } },
        { cliKey: 'bad key', phone: '01011112223', mergeData: { name: '이' } },
        { cliKey: 'a', phone: 'x', mergeData: { name: '박' } },
        { cliKey: 'd', phone: '01011112224' },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '안내' }],
      extra: true,
    };

    // Act
    const problems = problemsOf(input);

    // Assess
    expect(problems.map((p) => p.path).sort()).toEqual(
      [
        '$.variant',
        '$.msg',
        '$.recvInfoLst[1].cliKey',
        '$.recvInfoLst[2].phone',
        '$.recvInfoLst[2].cliKey',
        '$.fbInfoLst[0].ch',
        '$.extra',
        '$.resvReqDt',
        '$.recvInfoLst[3].mergeData',
      ].sort(),
    );
  });

  it('checks the body of an rcs message without a readable variant against v1.1', () => {
    // Prepare
    const input = { ...rcs('v1'), variant: undefined, header: '1', callback: undefined };

    // Act
    const problems = problemsOf(input);

    // Assess
    expect(problems.map((p) => p.path)).toEqual(['$.variant', '$.callback']);
  });

  it('refuses anything but a JSON object at $', () => {
    for (const input of [null, 'sms', 42, [sms]]) {
      expect(problemsOf(input)).toEqual([
        { path: '$', message: 'a queue message is a JSON object' },
      ]);
    }
  });

  it('stops at an unknown channel: there is no request schema to check the rest with', () => {
    expect(problemsOf({ channel: 'fax', anything: 1 })).toEqual([
      { path: '$.channel', message: expect.stringContaining('"fax" is not a channel') },
    ]);
  });

  it('judges the scheduling horizon by the clock it is given', () => {
    // Prepare
    const input = scheduled('2027-01-10 09:00');

    // Act
    const early = problemsOf(input, NOW);
    const later = problemsOf(input, new Date('2026-12-20T00:00:00.000Z'));

    // Assess
    expect(early.map((p) => p.path)).toEqual(['$.resvReqDt']);
    expect(later).toEqual([]);
  });

  it('does not check the horizon of a malformed resvReqDt twice', () => {
    expect(problemsOf(scheduled('2020-01-01'))).toEqual([
      { path: '$.resvReqDt', message: 'expected YYYY-MM-DD HH:mm' },
    ]);
  });

  it('looks carousel commerce variables up as name_N, N the carousel number', () => {
    // Prepare
    const message = (mergeData: Record<string, string>) => ({
      ...brandFree,
      chatBubbleType: 'CAROUSEL_COMMERCE',
      content: undefined,
      carousel: {
        head: { header: '#{season} 특가' },
        list: [
          { commerce: { title: '#{product} 특가', regularPrice: 10000, discountPrice: 8000 } },
          { commerce: { title: '#{product} 세트', regularPrice: 20000, discountPrice: 15000 } },
        ],
      },
      recvInfoLst: [{ cliKey: 'a', phone: '01011112222', mergeData }],
    });

    // Act
    const complete = problemsOf(
      message({ season: '겨울', product_1: '장갑', product_2: '목도리' }),
    );
    const missing = problemsOf(message({ season: '겨울', product_1: '장갑', product: '목도리' }));

    // Assess
    expect(complete).toEqual([]);
    expect(missing).toEqual([
      {
        path: '$.recvInfoLst[0].mergeData',
        message:
          'recipient 0 has no mergeData "product_2" for #{product} used in $.carousel.list[1].commerce.title',
      },
    ]);
  });

  it('does not look for variables in a two-way reply, which has no mergeData', () => {
    expect(problemsOf({ ...rcsReply, body: { description: '{{name}}님 #{name}' } })).toEqual([]);
  });

  it('writes paths with brackets for keys that are not identifiers', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['recvInfoLst', 3, 'cliKey'])).toBe('$.recvInfoLst[3].cliKey');
    expect(jsonPath(['mergeData', 'a b'])).toBe('$.mergeData["a b"]');
  });
});

describe('parseSendMessage: the normalised message', () => {
  it('splits the envelope from the request body and fills in the default variant', () => {
    // Act
    const message = parsed({ ...mms, fileIdLst: ['F1'] });

    // Assess
    expect(message).toEqual({
      channel: 'mms',
      variant: 'xms',
      body: { ...mms, channel: undefined, fileIdLst: ['F1'] },
      attachments: [],
    });
    expect(Object.keys(message.body)).not.toContain('channel');
  });

  it('keeps the rcs variant and S3 attachments', () => {
    // Prepare
    const attachments = [{ bucket: 'b', key: 'poster.jpg', contentType: 'image/jpeg' }];

    // Act
    const rcsMessage = parsed(rcs('integrated'));
    const mmsMessage = parsed({ ...mms, attachments });

    // Assess
    expect(rcsMessage).toMatchObject({ channel: 'rcs', variant: 'integrated' });
    expect(Object.keys(rcsMessage.body)).not.toContain('variant');
    expect(mmsMessage).toMatchObject({ channel: 'mms', attachments });
    expect(Object.keys(mmsMessage.body)).not.toContain('attachments');
  });
});
