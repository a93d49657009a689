import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';

/*
 * One realistic queue message per channel and RCS variant, for docs/sending.md and the tests.
 * Every example is valid at EXAMPLES_VALID_AT; the scheduled one stays valid until its
 * `resvReqDt`, so the committed documentation does not depend on the day it is generated.
 */

/** The instant at which every example is valid (2026-12-01 09:00 KST). */
export const EXAMPLES_VALID_AT = new Date('2026-12-01T00:00:00.000Z');

export interface SendMessageExample {
  readonly title: string;
  readonly description: string;
  readonly message: SendMessageInput;
}

const openUrl = (displayText: string, url: string) => ({
  suggestions: [
    {
      action: {
        displayText,
        postback: { data: 'set_by_chatbot_open_url' as const },
        urlAction: { openUrl: { url } },
      },
    },
  ],
});

export const SEND_MESSAGE_EXAMPLES: readonly SendMessageExample[] = [
  {
    title: 'SMS, scheduled, with variables',
    description:
      "An appointment reminder sent at 18:00 KST on 3 December through the default `xms` path. `#{name}`, `#{date}` and `#{time}` are filled from each recipient's `mergeData`; the 90-byte limit (Hangul 2 bytes each) holds for the text as written and as filled in for each recipient.",
    message: {
      channel: 'sms',
      callback: '0215880000',
      msg: '[한빛치과] #{name}님, #{date} #{time} 진료 예약을 잊지 마세요.',
      resvYn: 'Y',
      resvReqDt: '2026-12-03 18:00',
      recvInfoLst: [
        {
          cliKey: 'appt-20261204-0001',
          phone: '01012345678',
          mergeData: { name: '김민지', date: '12월 4일', time: '10:30' },
        },
        {
          cliKey: 'appt-20261204-0002',
          phone: '01098765432',
          mergeData: { name: '이준호', date: '12월 4일', time: '14:00' },
        },
      ],
    },
  },
  {
    title: 'MMS with an S3 attachment',
    description:
      'A poster stored in S3, sent through the multipart endpoint `{send_url}/xms/mms/file/v1`. Use `fileIdLst` instead for files uploaded to the gateway in advance, never both.',
    message: {
      channel: 'mms',
      callback: '0215880000',
      title: '(광고) 12월 감사 이벤트',
      msg: '(광고) 한빛마트 12월 감사 이벤트\n전 품목 최대 30% 할인, 12월 1일부터 12월 7일까지.\n자세한 내용은 첨부된 포스터를 확인해 주세요.\n무료수신거부 080-123-4567',
      attachments: [
        {
          bucket: 'hanbit-mms-assets',
          key: 'campaigns/2026-12/poster.jpg',
          name: 'poster.jpg',
          contentType: 'image/jpeg',
        },
      ],
      recvInfoLst: [{ cliKey: 'promo-202612-0001', phone: '01012345678' }],
    },
  },
  {
    title: 'RCS v1, advertising',
    description:
      'An advertising RCS message (`header` `1`) on `{api_url}/msg/v1/rcs`: it must carry the opt-out number in `footer`. Template variables of the registered template (`messagebaseId`) come from `mergeData`; an SMS fallback covers handsets without RCS.',
    message: {
      channel: 'rcs',
      variant: 'v1',
      messagebaseId: 'SS000000',
      callback: '0215880000',
      header: '1',
      footer: '080-123-4567',
      copyAllowed: false,
      recvInfoLst: [
        {
          cliKey: 'rcs-ad-0001',
          phone: '01012345678',
          mergeData: { description: '(광고) 겨울 신상품 최대 30% 할인! 지금 확인해 보세요.' },
        },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '(광고) 한빛마트 겨울 신상품 30% 할인 080-123-4567' }],
    },
  },
  {
    title: 'RCS v1.1 with a button',
    description:
      "An informational RCS message on `{api_url}/msg/v1.1/rcs` whose button URL uses the RCS variable `{{orderNo}}`, present in every recipient's `mergeData`. The MMS fallback uses `#{orderNo}`, the text syntax.",
    message: {
      channel: 'rcs',
      variant: 'v1.1',
      messagebaseId: 'SS000001',
      callback: '0215880000',
      header: '0',
      buttons: [openUrl('주문 상세 보기', 'https://shop.example.com/orders/{{orderNo}}')],
      recvInfoLst: [
        {
          cliKey: 'order-20261201-0001',
          phone: '01012345678',
          mergeData: {
            title: '주문이 접수되었습니다',
            description: '주문번호 A-1001, 결제 금액 39,800원',
            orderNo: 'A-1001',
          },
        },
      ],
      fbInfoLst: [
        {
          ch: 'MMS',
          title: '주문 접수 안내',
          msg: '주문번호 #{orderNo}이(가) 접수되었습니다. 감사합니다.',
        },
      ],
    },
  },
  {
    title: 'RCS integrated',
    description:
      'The integrated variant on `{send_url}/rcs/v1.1`: informational only (`header` `0`), without footer, copyAllowed or clickUrlYn.',
    message: {
      channel: 'rcs',
      variant: 'integrated',
      messagebaseId: 'SS000002',
      callback: '0215880000',
      header: '0',
      recvInfoLst: [
        {
          cliKey: 'ship-20261201-0001',
          phone: '01012345678',
          mergeData: { description: '주문하신 상품이 오늘 출고되었습니다.', name: '김민지' },
        },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '#{name}님, 주문하신 상품이 출고되었습니다.' }],
    },
  },
  {
    title: 'Two-way RCS reply',
    description:
      'A reply inside a two-way RCS conversation (`{send_url}/rcs/bi/v1.1`): one recipient, identified by `replyId`, `chatbotId`, `telco` and `phone`; no recipients list, no fallback, no scheduling.',
    message: {
      channel: 'rcs-reply',
      replyId: 'RPL-20261201-000123',
      cliKey: 'reply-000123',
      messagebaseId: 'SS000003',
      chatbotId: '0215880000',
      telco: 'SKT',
      phone: '01012345678',
      header: '0',
      body: { description: '문의 주셔서 감사합니다. 상담원이 곧 답변드리겠습니다.' },
    },
  },
  {
    title: 'Push with an SMS fallback',
    description:
      'An app push to the user `cuid`; `phone` is only the fallback number, required here because of `fbInfoLst`.',
    message: {
      channel: 'push',
      callback: '0215880000',
      appId: 'com.hanbit.mart',
      clickUrlYn: 'N',
      msg: { title: '배송 출발', body: '#{name}님, 주문하신 상품이 배송을 시작했습니다.' },
      ext: { imageUrl: 'https://cdn.example.com/push/delivery.png', orderNo: 'A-1001' },
      recvInfoLst: [
        {
          cliKey: 'push-0001',
          cuid: 'user-1001',
          phone: '01012345678',
          mergeData: { name: '김민지' },
        },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '[한빛마트] 주문하신 상품이 배송을 시작했습니다.' }],
    },
  },
  {
    title: 'Messenger notification with buttons',
    description:
      'A notification message for an approved template (`tmpltCode`) on channel `msgrChId`, with a web-link and a delivery-tracking button, and an SMS fallback for recipients the messenger cannot reach.',
    message: {
      channel: 'messenger-notice',
      callback: '0215880000',
      msgrChId: '@hanbitmart',
      tmpltCode: 'ORDER_SHIPPED_01',
      msg: '#{name}님, 주문하신 상품이 발송되었습니다.\n\n주문번호: #{orderNo}\n택배사: 한빛택배\n송장번호: #{invoiceNo}',
      buttons: [
        { name: '주문 상세', type: 'WL', url_mobile: 'https://shop.example.com/m/orders' },
        { name: '배송 조회', type: 'DS' },
      ],
      recvInfoLst: [
        {
          cliKey: 'notice-0001',
          phone: '01012345678',
          mergeData: { name: '김민지', orderNo: 'A-1001', invoiceNo: '123456789012' },
        },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '[한빛마트] #{name}님, 상품이 발송되었습니다.' }],
    },
  },
  {
    title: 'Brand message, template type',
    description:
      'A brand message from a registered template (`tmpltCode`, `chatBubbleType` as registered), to friends of the channel first (`targeting` `M`), with the opt-out number given explicitly.',
    message: {
      channel: 'brand-template',
      targeting: 'M',
      msgrChId: '@hanbitmart',
      tmpltCode: 'BRAND_WINTER_SALE',
      chatBubbleType: 'IMAGE',
      callback: '0215880000',
      unsubscribePhoneNumber: '080-123-4567',
      recvInfoLst: [{ cliKey: 'brand-t-0001', phone: '01012345678' }],
    },
  },
  {
    title: 'Brand message, free type, WIDE',
    description:
      'A free-form brand message with a wide image: content at most 76 characters and 5 line breaks, at most 2 buttons.',
    message: {
      channel: 'brand-free',
      targeting: 'I',
      msgrChId: '@hanbitmart',
      chatBubbleType: 'WIDE',
      callback: '0215880000',
      content: '#{name}님만을 위한 겨울 특가!\n오늘 자정까지 최대 30% 할인',
      imageUrl: 'https://cdn.example.com/brand/winter-wide.jpg',
      imageLink: 'https://shop.example.com/winter',
      buttons: [
        { name: '특가 보러 가기', type: 'WL', linkMobile: 'https://shop.example.com/winter' },
      ],
      recvInfoLst: [
        { cliKey: 'brand-f-0001', phone: '01012345678', mergeData: { name: '김민지' } },
      ],
    },
  },
];
