import type { SimChannel } from './context.ts';
import { stableHash } from './stable-hash.ts';

/*
 * The outcomes a delivery report can carry: the success codes, each channel family's failure
 * codes, and the carrier and network written on the report. The reports module draws among them.
 */

/** A delivery outcome code with its text. */
export interface Outcome {
  readonly code: string;
  readonly desc: string;
}

export const DELIVERED: Outcome = { code: '10000', desc: 'Success' };
export const UNCERTAIN: Outcome = {
  code: '32114',
  desc: 'Success uncertain: the message may still arrive within 3 days',
};
const NOT_RCS_CAPABLE: Outcome = { code: '54002', desc: 'Handset is not RCS-capable' };

/** Failure codes by channel family, as seen in production reports (`30xxx` SMS, …). */
/** The two text families report the same first reasons, SMS as `30xxx` and MMS as `31xxx`. */
const textFailures = (family: '30' | '31', own: readonly Outcome[]): readonly Outcome[] => [
  { code: `${family}001`, desc: 'Invalid recipient number' },
  { code: `${family}004`, desc: 'Handset switched off or out of coverage' },
  ...own,
];
const SMS_FAILURES = textFailures('30', [
  { code: '30007', desc: 'Blocked by carrier spam filter' },
  { code: '30010', desc: 'Number not in service' },
]);
const MMS_FAILURES = textFailures('31', [
  { code: '31006', desc: 'Handset cannot receive multimedia messages' },
  { code: '31010', desc: 'Content too large for the handset' },
]);
const MESSENGER_FAILURES: readonly Outcome[] = [
  { code: '32003', desc: 'Recipient is not a messenger user' },
  { code: '32006', desc: 'Recipient blocked the channel' },
  { code: '32011', desc: 'Message does not match the approved template' },
];
const RCS_FAILURES: readonly Outcome[] = [
  NOT_RCS_CAPABLE,
  NOT_RCS_CAPABLE,
  NOT_RCS_CAPABLE,
  { code: '41005', desc: 'RCS recipient unreachable' },
  { code: '41012', desc: 'RCS message base not usable' },
  { code: '55001', desc: 'RCS delivery timed out' },
];
/** Push has no documented family; the simulator uses `33xxx`. */
const PUSH_FAILURES: readonly Outcome[] = [
  { code: '33001', desc: 'App not installed or push token missing' },
  { code: '33002', desc: 'Push notifications disabled on the device' },
];

export const failuresFor = (channel: SimChannel): readonly Outcome[] => {
  switch (channel) {
    case 'SMS':
      return SMS_FAILURES;
    case 'LMS':
    case 'MMS':
      return MMS_FAILURES;
    case 'MSGR':
    case 'BRAND':
      return MESSENGER_FAILURES;
    case 'RCS':
      return RCS_FAILURES;
    case 'PUSH':
      return PUSH_FAILURES;
  }
};

const TELCOS = ['SKT', 'KT', 'LGU'] as const;
export const NETWORKS = ['5G', 'LTE'] as const;

export const pick = <T>(list: readonly T[], r: number): T => {
  const value = list[Math.min(list.length - 1, Math.floor(r * list.length))];
  if (value === undefined) throw new RangeError('pick from an empty list');
  return value;
};

/** Carrier of a number on text and RCS channels; messenger and push report none. */
export const telcoFor = (channel: string, phone: string | undefined): string =>
  channel === 'MSGR' || channel === 'BRAND' || channel === 'PUSH' || phone === undefined
    ? ''
    : pick(TELCOS, (stableHash(phone) % 1000) / 1000);
