/** The send use case on fakes: a scripted gateway, an in-memory store on a fixed clock, and SQS deliveries of a message. */

import { smsBody } from '../../fixtures/send-bodies.ts';
import { utf8Bytes } from '../../functions/event-table/item-size.ts';
import type { PayloadStore, StoredPayload } from '../../functions/event-table/ports.ts';
import type { SendMessage } from '../../functions/send-contract/queue-message.ts';
import type { RecipientResult } from '../../functions/send-records/ports.ts';
import type { QueueDelivery, SendDeps } from '../../functions/sending/ports.ts';
import type { RateLimiter } from '../../functions/sending/rate-limiter.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
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

/** A rate limiter that never waits: every request gets its recipients' quota at once. */
export const UNLIMITED: RateLimiter = {
  acquire: async (recipients) => ({ waitedMs: 0, window: 0, fullWindows: 0, reserved: recipients }),
};

/**
 * The gateway's immediate answer with a result for each recipient, each with a msgKey of its own:
 * the code `code` gives it by cliKey and place in the request, `10000` (accepted) unless told.
 */
export const accept = (
  cliKeys: string[],
  code: (cliKey: string, index: number) => string = () => '10000',
): SendOutcome<RecipientResult> => ({
  kind: 'immediate',
  results: cliKeys.map((cliKey, index) => ({
    cliKey,
    msgKey: `M-${cliKey}`,
    code: code(cliKey, index),
    message: 'm',
  })),
});

/** The gateway's answer accepting every recipient (`10000`), each with a msgKey of its own. */
export const acceptAll = (cliKeys: string[]): SendOutcome<RecipientResult> => accept(cliKeys);

/** A payload bucket in memory that keeps what was put, as text. */
export class MemoryPayloads implements PayloadStore {
  readonly objects = new Map<string, string>();
  async put(key: string, body: string | Uint8Array): Promise<StoredPayload> {
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    this.objects.set(key, text);
    return { bucket: 'payloads', key, bytes: utf8Bytes(text), sha256: 'x'.repeat(64) };
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

/** The use case's outcomes for the first delivery of `message` and for its redelivery from SQS. */
export const deliverTwice = async (message: unknown, deps: SendDeps) => {
  const first = await sendQueuedMessage(delivery(message, 1), deps);
  const second = await sendQueuedMessage(delivery(message, 2), deps);
  return [first, second] as const;
};
