import { smsBody } from '../../fixtures/send-bodies.ts';
import {
  type RateLimiter,
  RateLimitWaitExceededError,
} from '../../functions/sending/rate-limiter.ts';
import type { GatewayClient } from '../../gateway/client.ts';
import { GatewayRateLimitedError } from '../../gateway/errors.ts';

/** What one send through a limiter came to. */
export type LimitedSend =
  | {
      readonly kind: 'sent';
      /** The epoch second the recipients were counted in. */
      readonly window: number;
      readonly sentAt: number;
      readonly answeredAt: number;
      /** Recipients the gateway accepted. */
      readonly accepted: number;
    }
  /** The gateway refused the call with `29002`. */
  | { readonly kind: 'rate-limited' }
  /** The limiter found no window before the deadline. */
  | { readonly kind: 'out-of-time' };

/**
 * One send as the sender makes it: `recipients` reserved on `limiter` (until `deadline`), then an
 * SMS to that many recipients through `gateway`.
 */
export const sendThroughLimiter = async (
  limiter: RateLimiter,
  gateway: GatewayClient,
  recipients: number,
  deadline: number,
): Promise<LimitedSend> => {
  let window: number;
  try {
    ({ window } = await limiter.acquire(recipients, { deadline }));
  } catch (error) {
    if (error instanceof RateLimitWaitExceededError) return { kind: 'out-of-time' };
    throw error;
  }
  const sentAt = Date.now();
  try {
    const outcome = await gateway.sendSms(smsBody(recipients));
    const accepted =
      outcome.kind === 'immediate'
        ? outcome.results.filter((result) => result.code === '10000').length
        : 0;
    return { kind: 'sent', window, sentAt, answeredAt: Date.now(), accepted };
  } catch (error) {
    if (!(error instanceof GatewayRateLimitedError)) throw error;
    return { kind: 'rate-limited' };
  }
};
