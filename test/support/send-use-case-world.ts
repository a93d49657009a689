/** The send use case on fakes: a scripted gateway, an in-memory store on a fixed clock, and SQS deliveries of a message. */

import { smsBody } from '../../fixtures/send-bodies.ts';
import type { SendMessage } from '../../functions/send-contract/queue-message.ts';
import type { RecipientResult } from '../../functions/send-records/ports.ts';
import type { QueueDelivery, SendDeps } from '../../functions/sending/ports.ts';
import type { RateLimiter } from '../../functions/sending/rate-limiter.ts';
import type { ResendOptions } from '../../gateway/bearer/fresh-token-retry.ts';
import type { SendOutcome } from '../../gateway/client.ts';
import { FakeSendStore } from './fake-send-store.ts';

export const NOW = new Date('2026-11-21T00:00:00.000Z');

export type Answer = SendOutcome<RecipientResult> | Error | Promise<SendOutcome<RecipientResult>>;

/** A gateway answering from a script; each call records the recipients it was given. */
export class ScriptedGateway {
  readonly calls: string[][] = [];
  /** The messages of the calls, as sent. */
  readonly messages: SendMessage[] = [];
  constructor(private readonly answer: (cliKeys: string[], call: number) => Answer) {}

  async send(message: SendMessage, options?: ResendOptions): Promise<SendOutcome<RecipientResult>> {
    // The port's contract: every request takes its quota before it reaches the gateway.
    await options?.beforeSend?.();
    const cliKeys =
      'recvInfoLst' in message.body ? message.body.recvInfoLst.map((r) => r.cliKey) : [];
    this.calls.push(cliKeys);
    this.messages.push(message);
    const answer = this.answer(cliKeys, this.calls.length);
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

/** The store and the use case's dependencies at `NOW`, with a 30 s deadline. */
export const sendSetup = (
  gateway: ScriptedGateway,
  rateLimiter: RateLimiter,
  overrides: Partial<SendDeps> = {},
) => {
  const store = new FakeSendStore();
  store.now = () => NOW.getTime();
  const deps: SendDeps = {
    store,
    awaiting: store,
    acceptedEvents: true,
    gateway,
    rateLimiter,
    now: () => NOW,
    retentionDays: 35,
    claimLeaseMs: 60_000,
    deadline: NOW.getTime() + 30_000,
    ...overrides,
  };
  return { store, deps };
};

/** An SQS delivery of `message` (a string is sent as it is, anything else as JSON). */
export const delivery = (
  message: unknown,
  receiveCount = 1,
  messageId = 'sqs-1',
): QueueDelivery => ({
  body: typeof message === 'string' ? message : JSON.stringify(message),
  messageId,
  sentAt: NOW,
  receiveCount,
  maxReceiveCount: 6,
});

export const sms = (count: number) => ({ channel: 'sms', ...smsBody(count) });
