import { describe, expect, it } from 'vitest';
import {
  CALLBACK,
  itemsOf,
  newKey,
  type Recipient,
  recipients,
  send,
  sim,
  smsBody,
  statusOf,
  token,
  useSendingSimulator,
} from '../support/sending-simulator.ts';
import { callGateway, postMultipartMms } from '../support/simulator-http.ts';

useSendingSimulator();

interface EndpointCase {
  readonly path: string;
  readonly body: (recvInfoLst: readonly Recipient[]) => Record<string, unknown>;
  readonly ch: string;
  readonly productCode: string;
}

const ENDPOINT_CASES: readonly EndpointCase[] = [
  {
    path: '/xms/sms/v1',
    body: (r) => smsBody(r, { msg: '안녕하세요' }),
    ch: 'SMS',
    productCode: 'SMS',
  },
  { path: '/msg/v1/sms', body: (r) => smsBody(r), ch: 'SMS', productCode: 'SMS' },
  {
    path: '/xms/mms/v1',
    body: (r) => smsBody(r, { title: '공지', msg: '긴 안내문', fileIdLst: ['FILE-1'] }),
    ch: 'MMS',
    productCode: 'MMS',
  },
  {
    path: '/msg/v1/mms',
    body: (r) => smsBody(r, { title: 'Notice', msg: 'A longer text without files' }),
    ch: 'LMS',
    productCode: 'LMS',
  },
  {
    path: '/msg/v1/rcs',
    body: (recvInfoLst) => ({
      messagebaseId: 'SS000000',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
    }),
    ch: 'RCS',
    productCode: 'SMS',
  },
  {
    path: '/msg/v1.1/rcs',
    body: (recvInfoLst) => ({
      messagebaseId: 'TMPL-0001',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
      fbInfoLst: [{ ch: 'SMS', msg: 'fallback text' }],
    }),
    ch: 'RCS',
    productCode: 'ITMPL',
  },
  {
    path: '/rcs/v1.1',
    body: (recvInfoLst) => ({
      messagebaseId: 'SL000000',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
    }),
    ch: 'RCS',
    productCode: 'LMS',
  },
  {
    path: '/msg/v1/push',
    body: (r) => ({
      callback: CALLBACK,
      msg: { title: 'Hello', body: 'Your parcel is on its way' },
      appId: 'app-1',
      recvInfoLst: r.map((recipient) => ({ ...recipient, cuid: `user-${recipient.cliKey}` })),
      clickUrlYn: 'N',
    }),
    ch: 'PUSH',
    productCode: 'PUSH',
  },
  {
    path: '/msgr/notice/v1.2',
    body: (recvInfoLst) => ({
      callback: CALLBACK,
      msg: 'Your order has shipped',
      msgrChId: 'channel-1',
      tmpltCode: 'ORDER_SHIPPED',
      recvInfoLst,
    }),
    ch: 'MSGR',
    productCode: 'ITMPL',
  },
  {
    path: '/msgr/brand/tmplt/v1',
    body: (recvInfoLst) => ({
      targeting: 'I',
      msgrChId: 'channel-1',
      tmpltCode: 'BRAND_1',
      chatBubbleType: 'TEXT',
      callback: CALLBACK,
      recvInfoLst,
    }),
    ch: 'BRAND',
    productCode: 'BRDF',
  },
  {
    path: '/msgr/brand/custom/v1',
    body: (recvInfoLst) => ({
      targeting: 'N',
      msgrChId: 'channel-1',
      chatBubbleType: 'TEXT',
      content: 'Spring sale starts today',
      callback: CALLBACK,
      recvInfoLst,
    }),
    ch: 'BRAND',
    productCode: 'BRDNF',
  },
];

describe('send endpoints', () => {
  it.each(ENDPOINT_CASES)('$path accepts a valid body with one item per recipient', async (c) => {
    // Prepare
    const recvInfoLst = recipients(2);

    // Act
    const answer = await send(c.path, c.body(recvInfoLst));

    // Assess
    expect(answer.status).toBe(200);
    const items = itemsOf(answer.body);
    expect(items).toEqual(
      recvInfoLst.map((recipient) => ({
        cliKey: recipient.cliKey,
        msgKey: expect.any(String),
        phone: recipient.phone,
        code: '10000',
        message: expect.any(String),
      })),
    );
    const statuses = await statusOf(recvInfoLst.map((recipient) => recipient.cliKey));
    for (const status of statuses) {
      expect(status).toMatchObject({ ch: c.ch, productCode: c.productCode });
    }
  });

  it('/rcs/bi/v1.1 answers replyId and chatbotId instead of phone', async () => {
    // Prepare
    const cliKey = newKey('bi');
    const body = {
      replyId: 'REPLY-1',
      cliKey,
      messagebaseId: 'TMPL-CHAT',
      chatbotId: '15881234',
      telco: 'SKT',
      phone: '01099998888',
      body: { description: 'Thanks for your message' },
      header: '0',
    };

    // Act
    const answer = await send('/rcs/bi/v1.1', body);

    // Assess
    expect(answer.status).toBe(200);
    expect(itemsOf(answer.body)).toEqual([
      {
        cliKey,
        msgKey: expect.any(String),
        replyId: 'REPLY-1',
        chatbotId: '15881234',
        code: '10000',
        message: expect.any(String),
      },
    ]);
    expect(await statusOf([cliKey])).toMatchObject([{ ch: 'RCS', productCode: 'CHAT' }]);
  });

  it('answers 20004 to a send without a bearer token', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      body: smsBody(recipients(1)),
    });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20004' });
  });
});

describe('multipart MMS', () => {
  const multipart = async (reqMsg: unknown, files: number) => {
    const form = new FormData();
    form.append('reqMsg', new Blob([JSON.stringify(reqMsg)], { type: 'application/json' }));
    for (let index = 0; index < files; index++) {
      const bytes = Buffer.alloc(1_024, index);
      form.append('parts', new Blob([bytes], { type: 'image/jpeg' }), `photo-${index}.jpg`);
    }
    return postMultipartMms(sim, token, form);
  };

  it('accepts two attached files as an MMS', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'mms');

    // Act
    const answer = await multipart(smsBody(recvInfoLst, { title: 'Photos' }), 2);

    // Assess
    expect(answer.status).toBe(200);
    expect(itemsOf(answer.body)).toMatchObject([{ cliKey: recvInfoLst[0]?.cliKey, code: '10000' }]);
    expect(await statusOf([recvInfoLst[0]?.cliKey ?? ''])).toMatchObject([
      { ch: 'MMS', productCode: 'MMS' },
    ]);
  });

  it('refuses four attached files with 21031', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'mms');

    // Act
    const answer = await multipart(smsBody(recvInfoLst, { title: 'Photos' }), 4);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21031' });
    expect(await statusOf([recvInfoLst[0]?.cliKey ?? ''])).toMatchObject([
      { status: 'INVALID_KEY' },
    ]);
  });

  it('refuses a body that is not multipart with 21000', async () => {
    // Act
    const answer = await send('/xms/mms/file/v1', smsBody(recipients(1)));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21000' });
  });
});
