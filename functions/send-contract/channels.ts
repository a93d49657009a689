/**
 * The channels a queue message may name. A module of its own so that the event catalogue can name
 * them without importing the send contract (and, through its CP949 rules, iconv-lite).
 */
export const SEND_CHANNELS = [
  'sms',
  'mms',
  'rcs',
  'rcs-reply',
  'push',
  'messenger-notice',
  'brand-template',
  'brand-free',
] as const;
export type SendChannel = (typeof SEND_CHANNELS)[number];
