/** Queue message inputs per channel, and what parsing one answers, for the queue message tests. */
import type { Problem, SendMessage } from '../../functions/send-contract/queue-message.ts';
import { parseSendMessage } from '../../functions/send-contract/queue-message-parsing.ts';

/** 2026-12-01 09:00 KST. */
export const NOW = new Date('2026-12-01T00:00:00.000Z');

export const problemsOf = (input: unknown, now = NOW): Problem[] => {
  const result = parseSendMessage(input, { now });
  return result.ok ? [] : result.problems;
};

export const parsed = (input: unknown): SendMessage => {
  const result = parseSendMessage(input, { now: NOW });
  if (!result.ok) throw new Error(`expected a valid message: ${JSON.stringify(result.problems)}`);
  return result.message;
};

export const recipients = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: `r-${index}`,
    phone: `0101234${String(5000 + index)}`,
    ...extra,
  }));

export const sms = {
  channel: 'sms',
  callback: '0212345678',
  msg: '주문 안내',
  recvInfoLst: recipients(1),
};

export const mms = {
  channel: 'mms',
  callback: '0212345678',
  title: '주문 안내',
  msg: '주문이 접수되었습니다.',
  recvInfoLst: recipients(1),
};

export const rcs = (variant: string) => ({
  channel: 'rcs',
  variant,
  messagebaseId: 'SS000000',
  callback: '0212345678',
  header: '0',
  recvInfoLst: recipients(1),
});

export const rcsReply = {
  channel: 'rcs-reply',
  replyId: 'reply-1',
  cliKey: 'bi-1',
  messagebaseId: 'SS000000',
  chatbotId: '0212345678',
  telco: 'SKT',
  phone: '01012345678',
  body: { description: '문의 감사합니다' },
  header: '0',
};

export const push = {
  channel: 'push',
  callback: '0212345678',
  appId: 'app-1',
  clickUrlYn: 'N',
  msg: { title: '알림', body: '배송이 시작되었습니다' },
  recvInfoLst: [{ cliKey: 'p-0', cuid: 'user-0' }],
};

export const notice = {
  channel: 'messenger-notice',
  callback: '0212345678',
  msgrChId: '@shop',
  tmpltCode: 'T1',
  msg: '주문이 완료되었습니다.',
  recvInfoLst: recipients(1),
};

export const brandTemplate = {
  channel: 'brand-template',
  targeting: 'I',
  msgrChId: '@shop',
  tmpltCode: 'B1',
  chatBubbleType: 'TEXT',
  callback: '0212345678',
  recvInfoLst: recipients(1),
};

export const brandFree = {
  channel: 'brand-free',
  targeting: 'I',
  msgrChId: '@shop',
  chatBubbleType: 'TEXT',
  callback: '0212345678',
  content: '신상품 안내',
  recvInfoLst: recipients(1),
};

export const scheduled = (resvReqDt: string) => ({ ...sms, resvYn: 'Y', resvReqDt });

export interface Case {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** `undefined`: valid. Otherwise the path and a pattern of the message expected there. */
  readonly problem?: { readonly path: string; readonly message: RegExp };
}

export const valid = (name: string, input: Record<string, unknown>): Case => ({ name, input });
