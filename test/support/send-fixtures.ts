/**
 * One valid request body per send endpoint, built from the fields spec 01 names. Tests that need
 * a variant spread one of these and change what they exercise.
 */
let sequence = 0;
/** A `cliKey` unique within the test process. */
export const nextCliKey = (prefix = 'k'): string =>
  `${prefix}-${Date.now().toString(36)}-${sequence++}`;

export const recipients = (count: number, prefix = 'k') =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: nextCliKey(prefix),
    phone: `0101234${String(5000 + index).padStart(4, '0')}`,
  }));

export const smsBody = (count = 1) => ({
  callback: '0212345678',
  msg: '[msgbridge] 안녕하세요, 주문이 접수되었습니다.',
  recvInfoLst: recipients(count, 'sms'),
});

export const mmsBody = () => ({
  callback: '0212345678',
  title: '주문 안내',
  msg: '주문하신 상품이 발송되었습니다. '.repeat(10),
  recvInfoLst: recipients(2, 'mms'),
});

const rcsButtons = [
  {
    suggestions: [
      {
        action: {
          displayText: '주문 확인',
          postback: { data: 'set_by_chatbot_open_url' as const },
          urlAction: { openUrl: { url: 'https://example.com/orders/1' } },
        },
      },
    ],
  },
];

export const rcsBody = () => ({
  messagebaseId: 'SS000000',
  callback: '0212345678',
  header: '0' as const,
  buttons: rcsButtons,
  recvInfoLst: recipients(2, 'rcs').map((r) => ({
    ...r,
    mergeData: { description: '배송이 시작되었습니다' },
  })),
  fbInfoLst: [{ ch: 'SMS' as const, msg: '배송이 시작되었습니다' }],
});

export const rcsReplyBody = () => ({
  replyId: 'reply-1',
  cliKey: nextCliKey('bi'),
  messagebaseId: 'SS000000',
  chatbotId: '0212345678',
  telco: 'SKT',
  phone: '01012345678',
  body: { description: '문의 주셔서 감사합니다' },
  header: '0' as const,
});

export const pushBody = () => ({
  callback: '0212345678',
  msg: { title: '배송 알림', body: '#{name}님, 상품이 도착했습니다' },
  appId: 'app-1',
  clickUrlYn: 'N' as const,
  recvInfoLst: [{ cliKey: nextCliKey('push'), cuid: 'user-1', mergeData: { name: '홍길동' } }],
});

export const messengerNoticeBody = () => ({
  callback: '0212345678',
  msg: '#{name}님, 주문이 완료되었습니다.',
  msgrChId: '@msgbridge',
  tmpltCode: 'ORDER_DONE',
  buttons: [{ name: '주문 보기', type: 'WL' as const, url_mobile: 'https://example.com/m/orders' }],
  recvInfoLst: recipients(1, 'notice').map((r) => ({ ...r, mergeData: { name: '홍길동' } })),
  fbInfoLst: [{ ch: 'SMS' as const, msg: '주문이 완료되었습니다.' }],
});

export const brandTemplateBody = () => ({
  targeting: 'I' as const,
  msgrChId: '@msgbridge',
  tmpltCode: 'BRAND_1',
  chatBubbleType: 'TEXT' as const,
  callback: '0212345678',
  recvInfoLst: recipients(1, 'brandt'),
});

export const brandFreeBody = () => ({
  targeting: 'I' as const,
  msgrChId: '@msgbridge',
  chatBubbleType: 'TEXT' as const,
  callback: '0212345678',
  content: '이번 주 신상품을 만나보세요.',
  buttons: [{ name: '보러 가기', type: 'WL' as const, linkMobile: 'https://example.com/new' }],
  recvInfoLst: recipients(1, 'brandf'),
});
