/**
 * A valid message with an emoji is queued and sent by the local run, on every channel whose text
 * may hold one: push, RCS (v1, v1.1, integrated, the two-way reply), messenger notification and
 * the free brand message — the documentation examples (producer/examples.ts) with an emoji in
 * each of their texts. SQS takes such a body, so the local queue must too. SMS and MMS texts are
 * counted in CP949, which has no emoji: such a message is taken by the queue, as SQS takes it,
 * and refused by the sender's validation with a "Send Rejected" event, never sent.
 */
import { rmSync } from 'node:fs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendMessageInput } from '../../functions/send-contract/queue-message.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { enqueueSend } from '../../producer/enqueue-send.ts';
import { SEND_MESSAGE_EXAMPLES } from '../../producer/examples.ts';
import { waitFor } from '../support/e2e-wait.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

let bridge: LocalBridge;
const run = namedLocalRun('emoji');

beforeAll(async () => {
  bridge = await startLocalBridge(
    run.options({
      tpsQuota: 100,
      acceptedEvents: true,
      simulator: { reportDelayMs: 200, failureRate: 0, seed: 3 },
    }),
  );
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  rmSync(run.dataDir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

/** Appends an emoji outside the Basic Multilingual Plane to every text of the channel. */
const withEmoji = (message: Json): Json => {
  const emoji = (text: unknown) => `${String(text)} 🎁😀`;
  const copy = structuredClone(message);
  const recipients = Array.isArray(copy.recvInfoLst) ? (copy.recvInfoLst as Json[]) : [];
  switch (copy.channel) {
    case 'rcs':
      for (const recipient of recipients) {
        const mergeData = recipient.mergeData as Json;
        for (const field of ['title', 'description'])
          if (typeof mergeData[field] === 'string') mergeData[field] = emoji(mergeData[field]);
      }
      break;
    case 'rcs-reply': {
      const body = copy.body as Json;
      body.description = emoji(body.description);
      break;
    }
    case 'push': {
      const msg = copy.msg as Json;
      msg.title = emoji(msg.title);
      msg.body = emoji(msg.body);
      break;
    }
    case 'messenger-notice':
      copy.msg = emoji(copy.msg);
      break;
    case 'brand-free':
      copy.content = emoji(copy.content);
      break;
    default:
      throw new Error(`no emoji text for ${String(copy.channel)}`);
  }
  return copy;
};

/** The examples of the channels whose texts allow an emoji, with fresh cliKeys and emoji. */
const EMOJI_CHANNELS = new Set(['rcs', 'rcs-reply', 'push', 'messenger-notice', 'brand-free']);
const emojiMessages = (): Json[] =>
  SEND_MESSAGE_EXAMPLES.map((example) => example.message as unknown as Json)
    .filter((message) => EMOJI_CHANNELS.has(String(message.channel)))
    .map((message, index) => {
      const copy = withEmoji(message);
      if (Array.isArray(copy.recvInfoLst))
        copy.recvInfoLst = (copy.recvInfoLst as Json[]).map((recipient, r) => ({
          ...recipient,
          cliKey: `emoji-${index}-${r}`,
        }));
      if (typeof copy.cliKey === 'string') copy.cliKey = `emoji-${index}`;
      return copy;
    });

const cliKeysOf = (message: Json): string[] =>
  Array.isArray(message.recvInfoLst)
    ? (message.recvInfoLst as Json[]).map((recipient) => String(recipient.cliKey))
    : [String(message.cliKey)];

describe('a message with an emoji on the local run', () => {
  it('is queued and sent on every channel whose text allows one', async () => {
    // Prepare
    const messages = emojiMessages();
    const channels = [...new Set(messages.map((message) => String(message.channel)))].sort();
    const cliKeys = messages.flatMap(cliKeysOf);

    // Act: through the local run's queue, as a producer queues them.
    const queued = await enqueueSend(
      bridge.sqs,
      bridge.urls.sendQueue,
      messages as unknown as SendMessageInput[],
    );
    const accepted = () =>
      new Set(bridge.bus.details('Message Accepted').map((event) => String(event.data.cliKey)));
    await waitFor(() => cliKeys.every((cliKey) => accepted().has(cliKey)), 60_000, 250);

    // Assess: every example queued (none invalid, none refused by the queue) and accepted by
    // the gateway; none rejected.
    expect(channels).toEqual(['brand-free', 'messenger-notice', 'push', 'rcs', 'rcs-reply']);
    expect(messages.filter((message) => message.channel === 'rcs')).toHaveLength(3);
    expect(queued.invalid).toEqual([]);
    expect(queued.failed).toEqual([]);
    expect(queued.queued).toHaveLength(messages.length);
    expect(cliKeys.filter((cliKey) => !accepted().has(cliKey))).toEqual([]);
    expect(bridge.bus.details('Send Rejected')).toEqual([]);
    expect(bridge.bus.details('Message Rejected')).toEqual([]);
  });

  it('is queued on SMS, as SQS takes it, and refused by validation: CP949 has no emoji', async () => {
    // Prepare
    const sms = {
      channel: 'sms',
      callback: '0215880000',
      msg: '배송이 시작되었습니다 😀',
      recvInfoLst: [{ cliKey: 'emoji-sms-0', phone: '01012345678' }],
    };

    // Act
    const answer = await bridge.sqs.send(
      new SendMessageCommand({ QueueUrl: bridge.urls.sendQueue, MessageBody: JSON.stringify(sms) }),
    );
    await waitFor(() => bridge.bus.details('Send Rejected').length > 0, 60_000, 250);

    // Assess
    expect(answer.MessageId).toBeTruthy();
    const rejected = bridge.bus.details('Send Rejected');
    expect(rejected).toHaveLength(1);
    expect(JSON.stringify(rejected[0]?.data)).toMatch(/CP949|cp949|encod/i);
    expect(
      bridge.bus.details('Message Accepted').filter((event) => event.data.cliKey === 'emoji-sms-0'),
    ).toEqual([]);
  });
});
