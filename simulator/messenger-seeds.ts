import { stableHash } from './stable-hash.ts';

/*
 * What the simulated messenger management API starts with (spec 02): its answer codes, the
 * relays, categories and groups that exist outside the API, and the relay authentication code.
 */

/**
 * The codes of the simulator's refusals. The spec lists no codes for spec 02: `21001` is the
 * invalid-field code of the request-validation family (field notes); the `226xx` (channels and
 * groups) and `227xx` (templates) codes are the simulator's own, so a test can tell refusals apart.
 */
export const MESSENGER_CODES = {
  invalidField: '21001',
  unknownChannel: '22601',
  unknownGroup: '22602',
  alreadyInGroup: '22603',
  notInGroup: '22604',
  badChannelToken: '22605',
  channelExists: '22606',
  unknownCategory: '22607',
  channelStateConflict: '22608',
  unknownRelay: '22609',
  unknownTemplate: '22701',
  templateNotInT: '22702',
  templateCodeTaken: '22703',
} as const;

export const SIM_RELAYS = ['r01', 'r02'] as const;

/** Seeded channel categories (11 characters). */
export const SIM_CHANNEL_CATEGORIES = [
  { code: '00100010001', name: 'Shopping/Online' },
  { code: '00200020001', name: 'Finance/Bank' },
] as const;

/** Seeded template categories (6 digits: group code + detail code). */
export const SIM_TEMPLATE_CATEGORIES = [
  {
    code: '001001',
    name: 'Sign-up',
    groupName: 'Membership',
    iclusion: 'welcome after sign-up',
    exclusion: 'advertising',
  },
  {
    code: '002001',
    name: 'Order confirmed',
    groupName: 'Orders',
    iclusion: 'order and payment notices',
    exclusion: 'discount offers',
  },
] as const;

/** Seeded groups: channel groups are created outside the API. */
export const SIM_GROUPS = [
  { chGrpKey: 'G-sim-0001', chGrpName: 'Simulator group', chGrpStatCd: 'A' },
  { chGrpKey: 'G-sim-0002', chGrpName: 'Pending group', chGrpStatCd: 'R' },
] as const;

/**
 * The relay authentication code the simulator "delivers" to the administrator's device after
 * `channel/token`: a deterministic 6-digit number, so tests and local runs can compute it.
 */
export const simulatedChannelToken = (msgrChId: string, phoneNumber: string, rid: string): number =>
  100_000 + (stableHash(`${msgrChId}|${phoneNumber}|${rid}`) % 900_000);
