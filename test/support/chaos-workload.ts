import type { Workload } from '../../chaos/workload.ts';

/**
 * A chaos workload of one sent cliKey (`k1`) and nothing else, its reports delivered by
 * `reportDelivery`: what the tests of the run's verdict and its trail plant their outcomes on.
 */
export const oneSendWorkload = (reportDelivery: Workload['reportDelivery']): Workload => ({
  seed: 1,
  reportDelivery,
  sends: [],
  cliKeys: ['k1'],
  scheduledCliKeys: new Set(),
  emojiCliKeys: [],
  badSends: [],
  mo: [],
  attachments: 0,
  hostile: [],
});
